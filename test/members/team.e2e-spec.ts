import {
  DEFAULT_PERMISSIONS,
  OWNER_PERMISSIONS,
  PERMISSION_MESSAGES,
} from '../../src/access/permissions';
import { TEAM_RULE_MESSAGES } from '../../src/domains/members/team-rules';
import { Factory, SignedInUser, TestProject } from '../support/factories/factories';
import { addMember, memberRow, onlyFlags } from '../support/factories/team';
import { startTestApp, TestApp } from '../support/test-app';
import { MICROS } from '../support/expectations';

describe('Teams: members, role defaults and the team rules', () => {
  let t: TestApp;
  let make: Factory;
  let owner: SignedInUser;

  beforeAll(async () => {
    t = await startTestApp();
    make = new Factory(t);
    owner = await make.user('Owner');
  });

  afterAll(async () => {
    await t?.close();
  });

  const members = (project: TestProject, path = '') => `/api/projects/${project.id}/members${path}`;

  describe('role defaults and add-time flags', () => {
    it('adds an editor with the editor defaults and lists it with every member field', async () => {
      const project = await make.project(owner);
      const user = await make.user('Ed Itor');
      const res = await t.http
        .post(members(project))
        .set('Authorization', owner.auth)
        .send({ email: user.email.toUpperCase(), role: 'editor' })
        .expect(201);
      const expected = {
        user_id: user.id,
        email: user.email,
        name: 'Ed Itor',
        role: 'editor',
        role_title: 'Редактор',
        permissions: {
          can_view_content: true,
          can_edit_content: true,
          can_publish: true,
          can_use_ai: true,
          can_manage_templates: true,
          can_view_analytics: true,
          can_manage_accounts: false,
          can_manage_team: false,
          can_manage_settings: false,
        },
        created_at: expect.stringMatching(MICROS),
      };
      expect(res.body).toEqual(expected);
      expect(await memberRow(t, project.id, user.id)).toEqual({
        role: 'editor',
        ...expected.permissions,
      });
      const list = await t.http.get(members(project)).set('Authorization', owner.auth).expect(200);
      expect(list.body).toEqual({ items: [expected], count: 1 });
      // The answer of POST is the stored member, to the microsecond.
      expect(list.body.items[0]).toEqual(res.body);
    });

    it('adds an observer with the observer defaults', async () => {
      const project = await make.project(owner);
      const user = await make.user('Ob Server');
      const res = await t.http
        .post(members(project))
        .set('Authorization', owner.auth)
        .send({ email: user.email, role: 'observer' })
        .expect(201);
      expect(res.body.role_title).toBe('Наблюдатель');
      expect(res.body.permissions).toEqual(onlyFlags('can_view_content', 'can_view_analytics'));
      expect(await memberRow(t, project.id, user.id)).toEqual({
        role: 'observer',
        ...DEFAULT_PERMISSIONS.observer,
      });
    });

    it('lets flags given at add time override the role defaults', async () => {
      const project = await make.project(owner);
      const user = await make.user();
      const res = await t.http
        .post(members(project))
        .set('Authorization', owner.auth)
        .send({
          email: user.email,
          role: 'observer',
          permissions: { can_view_analytics: false, can_manage_settings: true },
        })
        .expect(201);
      expect(res.body.permissions).toEqual(onlyFlags('can_view_content', 'can_manage_settings'));
      const projects = await t.http
        .get('/api/projects')
        .set('Authorization', user.auth)
        .expect(200);
      expect(projects.body.items).toEqual([
        expect.objectContaining({
          id: project.id,
          role: 'observer',
          is_owner: false,
          my_permissions: onlyFlags('can_view_content', 'can_manage_settings'),
        }),
      ]);
    });

    it('gives the owner every flag in GET /api/projects', async () => {
      const me = await make.user();
      const project = await make.project(me);
      const res = await t.http.get('/api/projects').set('Authorization', me.auth).expect(200);
      expect(res.body.items).toEqual([
        expect.objectContaining({
          id: project.id,
          role: 'owner',
          my_permissions: OWNER_PERMISSIONS,
        }),
      ]);
    });

    it('refuses unknown users, duplicates, the owner, unknown flags and roles', async () => {
      const project = await make.project(owner);
      const user = await make.user();
      const post = (body: object) =>
        t.http.post(members(project)).set('Authorization', owner.auth).send(body);
      expect(
        (await post({ email: 'nobody@example.com', role: 'editor' }).expect(404)).body.error.code,
      ).toBe('user_not_found');
      await post({ email: user.email, role: 'editor' }).expect(201);
      expect(
        (await post({ email: user.email, role: 'observer' }).expect(409)).body.error.code,
      ).toBe('member_exists');
      expect((await post({ email: owner.email, role: 'editor' }).expect(409)).body.error.code).toBe(
        'member_exists',
      );
      const other = await make.user();
      const bad = await post({
        email: other.email,
        role: 'admin',
        permissions: { can_fly: true },
      }).expect(400);
      expect(bad.body.error.code).toBe('validation_failed');
      expect(bad.body.error.message).toContain('role');
      expect(bad.body.error.message).toContain('permissions.can_fly');
      expect(await memberRow(t, project.id, other.id)).toBeNull();
    });
  });

  describe('PATCH and DELETE by the owner', () => {
    it('changes flags (merged), and a new role resets to its defaults before flags apply', async () => {
      const project = await make.project(owner);
      const user = await make.user();
      await addMember(t, owner, project, user, 'observer');
      const patch = (body: object) =>
        t.http
          .patch(members(project, `/${user.id}`))
          .set('Authorization', owner.auth)
          .send(body);
      let res = await patch({ permissions: { can_use_ai: true } }).expect(200);
      expect(res.body.permissions).toEqual(
        onlyFlags('can_view_content', 'can_view_analytics', 'can_use_ai'),
      );
      res = await patch({ role: 'editor', permissions: { can_publish: false } }).expect(200);
      expect(res.body.role).toBe('editor');
      expect(res.body.permissions).toEqual({ ...DEFAULT_PERMISSIONS.editor, can_publish: false });
      const list = await t.http.get(members(project)).set('Authorization', owner.auth).expect(200);
      expect(list.body.items).toEqual([res.body]);
      expect(await memberRow(t, project.id, user.id)).toEqual({
        role: 'editor',
        ...DEFAULT_PERMISSIONS.editor,
        can_publish: false,
      });
    });

    it('removes a member with 204; the member loses access', async () => {
      const project = await make.project(owner);
      const user = await make.user();
      await addMember(t, owner, project, user, 'editor');
      await t.http
        .delete(members(project, `/${user.id}`))
        .set('Authorization', owner.auth)
        .expect(204);
      expect(await memberRow(t, project.id, user.id)).toBeNull();
      const res = await t.http.get(members(project)).set('Authorization', user.auth).expect(404);
      expect(res.body.error.code).toBe('project_not_found');
    });

    it('answers member_not_found for a user who is not a member, or a non-integer id', async () => {
      const project = await make.project(owner);
      const res = await t.http
        .patch(members(project, '/999999'))
        .set('Authorization', owner.auth)
        .send({ role: 'editor' })
        .expect(404);
      expect(res.body.error.code).toBe('member_not_found');
      const notInteger = await t.http
        .delete(members(project, '/abc'))
        .set('Authorization', owner.auth)
        .expect(404);
      expect(notInteger.body.error.code).toBe('member_not_found');
    });

    it('keeps the owner untouchable, even by the owner', async () => {
      const project = await make.project(owner);
      let res = await t.http
        .patch(members(project, `/${owner.id}`))
        .set('Authorization', owner.auth)
        .send({ role: 'observer' })
        .expect(403);
      expect(res.body.error).toEqual({ code: 'forbidden', message: TEAM_RULE_MESSAGES.owner });
      res = await t.http
        .delete(members(project, `/${owner.id}`))
        .set('Authorization', owner.auth)
        .expect(403);
      expect(res.body.error.message).toBe(TEAM_RULE_MESSAGES.owner);
      const still = await t.http.get('/api/projects').set('Authorization', owner.auth).expect(200);
      expect(still.body.items.map((p: { id: number }) => p.id)).toContain(project.id);
    });
  });

  describe('a member with can_manage_team acts within its own role', () => {
    let project: TestProject;
    let manager: SignedInUser; // editor with default flags plus can_manage_team
    let teamObserver: SignedInUser; // observer with default flags plus can_manage_team

    beforeAll(async () => {
      project = await make.project(owner);
      manager = await make.user('Team editor');
      teamObserver = await make.user('Team observer');
      await addMember(t, owner, project, manager, 'editor', { can_manage_team: true });
      await addMember(t, owner, project, teamObserver, 'observer', { can_manage_team: true });
    });

    const as = (actor: SignedInUser) => ({
      add: (body: object) =>
        t.http.post(members(project)).set('Authorization', actor.auth).send(body),
      patch: (userId: number, body: object) =>
        t.http
          .patch(members(project, `/${userId}`))
          .set('Authorization', actor.auth)
          .send(body),
      remove: (userId: number) =>
        t.http.delete(members(project, `/${userId}`)).set('Authorization', actor.auth),
    });

    it('an editor with can_manage_team adds an editor and an observer', async () => {
      const ed = await make.user();
      const ob = await make.user();
      await as(manager).add({ email: ed.email, role: 'editor' }).expect(201);
      await as(manager).add({ email: ob.email, role: 'observer' }).expect(201);
      expect(await memberRow(t, project.id, ed.id)).toEqual({
        role: 'editor',
        ...DEFAULT_PERMISSIONS.editor,
      });
      expect(await memberRow(t, project.id, ob.id)).toEqual({
        role: 'observer',
        ...DEFAULT_PERMISSIONS.observer,
      });
      await as(manager)
        .patch(ob.id, { permissions: { can_use_ai: true } })
        .expect(200);
      await as(manager).remove(ed.id).expect(204);
      expect(await memberRow(t, project.id, ed.id)).toBeNull();
    });

    it('fails to grant a flag it lacks, at add time and by PATCH; nothing changes', async () => {
      const user = await make.user();
      let res = await as(manager)
        .add({ email: user.email, role: 'observer', permissions: { can_manage_settings: true } })
        .expect(403);
      expect(res.body.error).toEqual({
        code: 'forbidden',
        message: `${TEAM_RULE_MESSAGES.flagNotHeld}: can_manage_settings`,
      });
      expect(await memberRow(t, project.id, user.id)).toBeNull();

      await addMember(t, owner, project, user, 'observer');
      res = await as(manager)
        .patch(user.id, { permissions: { can_manage_accounts: true } })
        .expect(403);
      expect(res.body.error.message).toBe(`${TEAM_RULE_MESSAGES.flagNotHeld}: can_manage_accounts`);
      expect(await memberRow(t, project.id, user.id)).toEqual({
        role: 'observer',
        ...DEFAULT_PERMISSIONS.observer,
      });
    });

    it('fails to touch the owner or itself, but may leave', async () => {
      let res = await as(manager).patch(owner.id, { role: 'observer' }).expect(403);
      expect(res.body.error.message).toBe(TEAM_RULE_MESSAGES.owner);
      res = await as(manager).remove(owner.id).expect(403);
      expect(res.body.error.message).toBe(TEAM_RULE_MESSAGES.owner);
      res = await as(manager)
        .patch(manager.id, { permissions: { can_manage_team: false } })
        .expect(403);
      expect(res.body.error.message).toBe(TEAM_RULE_MESSAGES.self);
      expect(await memberRow(t, project.id, manager.id)).toEqual({
        role: 'editor',
        ...DEFAULT_PERMISSIONS.editor,
        can_manage_team: true,
      });

      const leaver = await make.user();
      await addMember(t, owner, project, leaver, 'editor', { can_manage_team: true });
      await as(leaver).remove(leaver.id).expect(204);
      expect(await memberRow(t, project.id, leaver.id)).toBeNull();
    });

    it('an observer with can_manage_team cannot add, change or remove an editor', async () => {
      const user = await make.user();
      let res = await as(teamObserver).add({ email: user.email, role: 'editor' }).expect(403);
      expect(res.body.error).toEqual({ code: 'forbidden', message: TEAM_RULE_MESSAGES.roleAbove });
      expect(await memberRow(t, project.id, user.id)).toBeNull();

      res = await as(teamObserver)
        .patch(manager.id, { permissions: { can_use_ai: false } })
        .expect(403);
      expect(res.body.error.message).toBe(TEAM_RULE_MESSAGES.roleAbove);
      res = await as(teamObserver).remove(manager.id).expect(403);
      expect(res.body.error.message).toBe(TEAM_RULE_MESSAGES.roleAbove);
      expect(await memberRow(t, project.id, manager.id)).not.toBeNull();

      const ob = await make.user();
      await addMember(t, owner, project, ob, 'observer');
      res = await as(teamObserver).patch(ob.id, { role: 'editor' }).expect(403);
      expect(res.body.error.message).toBe(TEAM_RULE_MESSAGES.roleAbove);
      // Within its own role and flags it may act.
      await as(teamObserver)
        .patch(ob.id, { permissions: { can_view_analytics: false } })
        .expect(200);
      await as(teamObserver).remove(ob.id).expect(204);
    });

    it('any member may leave, even without can_manage_team; removing others needs it', async () => {
      const plain = await make.user();
      const other = await make.user();
      await addMember(t, owner, project, plain, 'observer');
      await addMember(t, owner, project, other, 'observer');
      const res = await as(plain).remove(other.id).expect(403);
      expect(res.body.error).toEqual({
        code: 'forbidden',
        message: PERMISSION_MESSAGES.can_manage_team,
      });
      expect(await memberRow(t, project.id, other.id)).not.toBeNull();
      // Without the flag, whether the user is a member at all is not told either.
      const unknown = await as(plain).remove(999999).expect(403);
      expect(unknown.body.error.message).toBe(PERMISSION_MESSAGES.can_manage_team);
      await as(plain).remove(plain.id).expect(204);
      expect(await memberRow(t, project.id, plain.id)).toBeNull();
    });
  });

  describe('project settings (PUT /api/projects/:id, can_manage_settings)', () => {
    it('changes name, IANA time zone, appearance and wallpaper for a member holding the flag', async () => {
      const project = await make.project(owner);
      const admin = await make.user();
      await addMember(t, owner, project, admin, 'observer', { can_manage_settings: true });
      const res = await t.http
        .put(`/api/projects/${project.id}`)
        .set('Authorization', admin.auth)
        .send({ name: 'Renamed', timezone: 'Asia/Tokyo', appearance: 'dark', wallpaper: 'waves' })
        .expect(200);
      expect(res.body).toMatchObject({
        id: project.id,
        name: 'Renamed',
        timezone: 'Asia/Tokyo',
        appearance: 'dark',
        wallpaper: 'waves',
        role: 'observer',
        is_owner: false,
      });
      const { rows } = await t.db.query(
        'SELECT name, timezone, appearance, wallpaper FROM projects WHERE id = $1',
        [project.id],
      );
      expect(rows).toEqual([
        { name: 'Renamed', timezone: 'Asia/Tokyo', appearance: 'dark', wallpaper: 'waves' },
      ]);
    });

    it('refuses a time zone that is not IANA, and changes nothing', async () => {
      const project = await make.project(owner, 'Kept', 'Europe/Moscow');
      const res = await t.http
        .put(`/api/projects/${project.id}`)
        .set('Authorization', owner.auth)
        .send({ name: 'Other', timezone: 'Mars/Olympus' })
        .expect(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.message).toContain('timezone');
      const { rows } = await t.db.query('SELECT name, timezone FROM projects WHERE id = $1', [
        project.id,
      ]);
      expect(rows).toEqual([{ name: 'Kept', timezone: 'Europe/Moscow' }]);
    });
  });

  it('documents the application routes in OpenAPI under the Application API tag only', async () => {
    const full = (await t.http.get('/api/openapi.json').expect(200)).body;
    const routes: [string, string][] = [
      ['/api/projects/{id}/members', 'get'],
      ['/api/projects/{id}/members', 'post'],
      ['/api/projects/{id}/members/{userId}', 'patch'],
      ['/api/projects/{id}/members/{userId}', 'delete'],
      ['/api/posts', 'get'],
      ['/api/posts', 'post'],
      ['/api/posts/{id}', 'put'],
      ['/api/posts/{id}', 'delete'],
      ['/api/posts/publish', 'post'],
      ['/api/posts/generate-post', 'post'],
      ['/api/posts/generate-image', 'post'],
      ['/api/posts/templates', 'get'],
      ['/api/posts/templates', 'post'],
      ['/api/posts/templates/generate', 'post'],
      ['/api/posts/templates/{id}', 'put'],
      ['/api/analytics/channels', 'get'],
    ];
    for (const [path, method] of routes) {
      expect({ path, method, tags: full.paths[path]?.[method]?.tags }).toEqual({
        path,
        method,
        tags: ['Application API'],
      });
    }
    const publicDoc = (await t.http.get('/api/public/v1/openapi.json').expect(200)).body;
    expect(Object.keys(publicDoc.paths).filter((p) => !p.startsWith('/api/public/v1/'))).toEqual(
      [],
    );
  });
});

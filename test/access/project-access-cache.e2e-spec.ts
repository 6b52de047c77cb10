import { ProjectAccessCache } from '../../src/access/project-access-cache';
import { ProjectsService } from '../../src/domains/projects/projects.service';
import { Factory, SignedInUser, TestProject } from '../support/factories/factories';
import {
  instanceWithOwnRedis,
  lookups as lookupsOf,
  WITH_CACHES,
} from '../support/cache-instances';
import { addMember } from '../support/factories/team';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/waits';

/**
 * Users' access to projects remembered by each process (src/access/project-access-cache.ts):
 * a change of a project's members or settings made through any instance is enforced by every
 * instance as soon as it hears of it; the absence of access is never remembered.
 */
describe("Users' access to projects remembered by each API process", () => {
  let a: TestApp;
  let b: TestApp;
  let make: Factory;
  let owner: SignedInUser;

  beforeAll(async () => {
    a = await startTestApp(WITH_CACHES);
    b = await startTestApp(WITH_CACHES, { shareWith: a });
    make = new Factory(a);
    owner = await make.user('Owner');
  });

  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** A route that needs can_view_analytics in the project. */
  const analytics = (app: TestApp, user: SignedInUser, project: TestProject) =>
    app.http
      .get(`/api/analytics/channels?project_id=${project.id}`)
      .set('Authorization', user.auth);

  const lookups = (app: TestApp, source: 'memory' | 'database') =>
    lookupsOf(app, 'herald_project_access_lookups_total', source);

  /** Repeats the request on `app` until its access was taken from memory. */
  const remembered = (app: TestApp, user: SignedInUser, project: TestProject) =>
    waitFor(async () => {
      const before = await lookups(app, 'memory');
      await analytics(app, user, project).expect(200);
      return (await lookups(app, 'memory')) > before;
    });

  const refusedBy = (app: TestApp, user: SignedInUser, project: TestProject, status: number) =>
    waitFor(async () => (await analytics(app, user, project)).status === status, 3_000);

  const member = (project: TestProject, user: SignedInUser) =>
    `/api/projects/${project.id}/members/${user.id}`;

  /** A project of the owner's with `editor` as an editor (who may view analytics). */
  const projectWithEditor = async (editor: SignedInUser) => {
    const project = await make.project(owner);
    await addMember(a, owner, project, editor, 'editor');
    return project;
  };

  it('a flag taken away through one instance is enforced there at once and by the others as soon as they hear it', async () => {
    const editor = await make.user('Editor');
    const project = await projectWithEditor(editor);
    const other = await projectWithEditor(editor);
    for (const app of [a, b]) {
      await remembered(app, editor, project);
      await remembered(app, editor, other);
    }

    await a.http
      .patch(member(project, editor))
      .set('Authorization', owner.auth)
      .send({ permissions: { can_view_analytics: false } })
      .expect(200);

    await analytics(a, editor, project).expect(403);
    await refusedBy(b, editor, project, 403);
    // Only the changed project was forgotten.
    const before = await lookups(b, 'memory');
    await analytics(b, editor, other).expect(200);
    expect(await lookups(b, 'memory')).toBe(before + 1);
  });

  it('a member removed through one instance is refused by every instance', async () => {
    const editor = await make.user('Editor');
    const project = await projectWithEditor(editor);
    for (const app of [a, b]) await remembered(app, editor, project);

    await a.http.delete(member(project, editor)).set('Authorization', owner.auth).expect(204);

    await analytics(a, editor, project).expect(404);
    await refusedBy(b, editor, project, 404);
  });

  it("a change of the project's settings makes every instance read the access again", async () => {
    const editor = await make.user('Editor');
    const project = await projectWithEditor(editor);
    await remembered(b, editor, project);

    await a.http
      .put(`/api/projects/${project.id}`)
      .set('Authorization', owner.auth)
      .send({ name: 'Renamed' })
      .expect(200);

    await waitFor(async () => {
      const before = await lookups(b, 'database');
      await analytics(b, editor, project).expect(200);
      return (await lookups(b, 'database')) > before;
    });
    const access = await b.app.get(ProjectsService).findAccess(editor.id, project.id);
    expect(access?.project.name).toBe('Renamed');
  });

  it('never remembers the absence of access: a user added through one instance is let in by every instance at once', async () => {
    const editor = await make.user('Editor');
    const project = await make.project(owner);
    for (const app of [a, b]) await analytics(app, editor, project).expect(404);

    await addMember(a, owner, project, editor, 'editor');

    await analytics(b, editor, project).expect(200);
    await analytics(a, editor, project).expect(200);
  });

  it('remembers an access: a change written to the database by hand is not seen while it is remembered', async () => {
    const editor = await make.user('Editor');
    const project = await projectWithEditor(editor);
    await remembered(b, editor, project);

    await a.db.query(
      `UPDATE project_members SET can_view_analytics = false WHERE project_id = $1 AND user_id = $2`,
      [project.id, editor.id],
    );

    const before = await lookups(b, 'database');
    await analytics(b, editor, project).expect(200);
    expect(await lookups(b, 'database')).toBe(before);
    // The instance that never checked it reads the database.
    await analytics(a, editor, project).expect(403);
  });

  describe('an instance whose Redis goes away', () => {
    const cut = instanceWithOwnRedis(() => a);

    it('forgets every access and reads the database while it cannot hear changes, then listens again', async () => {
      const editor = await make.user('Editor');
      const project = await projectWithEditor(editor);
      await remembered(cut.app, editor, project);

      cut.redis.down();
      // Changed behind its back: only a database read can refuse it now.
      await a.db.query(
        `UPDATE project_members SET can_view_analytics = false WHERE project_id = $1 AND user_id = $2`,
        [project.id, editor.id],
      );
      await refusedBy(cut.app, editor, project, 403);

      cut.redis.up = true;
      const other = await projectWithEditor(editor);
      await remembered(cut.app, editor, other);
      await a.http.delete(member(other, editor)).set('Authorization', owner.auth).expect(204);
      await refusedBy(cut.app, editor, other, 404);
    });
  });

  it('does not remember an access read before a change was heard, and hands out frozen accesses', async () => {
    const cache = b.app.get(ProjectAccessCache);
    const editor = await make.user('Editor');
    const project = await projectWithEditor(editor);
    await remembered(b, editor, project);
    const access = cache.get(editor.id, project.id)!;
    expect(Object.isFrozen(access) && Object.isFrozen(access.permissions)).toBe(true);
    expect(Object.isFrozen(access.project)).toBe(true);

    const version = cache.version();
    await a.http
      .patch(member(project, editor))
      .set('Authorization', owner.auth)
      .send({ role: 'observer' })
      .expect(200);
    await waitFor(() => cache.version() !== version);
    const stale = { ...access, project: { ...access.project } } as typeof access;
    cache.put(version, editor.id, stale);
    expect(cache.get(editor.id, project.id)).toBeUndefined();

    cache.put(cache.version(), editor.id, stale);
    expect(cache.get(editor.id, project.id)).toBe(stale);
  });
});

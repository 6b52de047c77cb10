import { Factory, SignedInUser, TestProject } from '../support/factories/factories';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { TestApp } from '../support/test-app';
import { MICROS, TELEGRAM_CHANNEL_LIMITS } from '../support/expectations';

describe('Public read API: projects, channels, usage', () => {
  let t: TestApp;
  let make: Factory;
  let admin: SignedInUser;
  let key: string;
  let project: TestProject;

  let world: TelegramWorld;

  beforeAll(async () => {
    world = await startWithTelegram();
    ({ t, make } = world);
    admin = await make.admin();
    project = await make.project(admin, 'Launch', 'Europe/Berlin');
    key = await make.apiKey(admin);
  });

  afterAll(() => world?.close());

  const get = (path: string, apiKey = key) =>
    t.http.get(`/api/public/v1${path}`).set('Authorization', `Bearer ${apiKey}`);

  describe('GET /projects', () => {
    it('lists owned and member projects field by field, with the database microseconds', async () => {
      const other = await make.user('Other owner');
      const shared = await make.project(other, 'Shared');
      await make.project(other, 'Not shared');
      await t.db.query(
        `INSERT INTO project_members (project_id, user_id, role, can_view_content, can_edit_content, can_publish,
           can_use_ai, can_manage_templates, can_view_analytics, can_manage_accounts, can_manage_team, can_manage_settings)
         VALUES ($1, $2, 'observer', true, false, false, false, false, true, false, false, false)`,
        [shared.id, admin.id],
      );

      const res = await get('/projects').expect(200);

      expect(res.body.count).toBe(2);
      expect(res.body.items).toHaveLength(2);
      const [own, member] = res.body.items;
      const { rows } = await t.db.query(
        `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS created FROM projects WHERE id = $1`,
        [project.id],
      );
      expect(own).toEqual({
        id: project.id,
        name: 'Launch',
        timezone: 'Europe/Berlin',
        created_at: rows[0].created,
        is_owner: true,
      });
      expect(own.created_at).toMatch(MICROS);
      expect(member).toEqual({
        id: shared.id,
        name: 'Shared',
        timezone: 'Europe/Moscow',
        created_at: expect.stringMatching(MICROS),
        is_owner: false,
      });
    });

    it('keeps microseconds that a JavaScript Date would lose', async () => {
      await t.db.query(
        `UPDATE projects SET created_at = '2026-03-04 05:06:07.123456+00' WHERE id = $1`,
        [project.id],
      );
      const res = await get('/projects').expect(200);
      expect(res.body.items.find((p: { id: number }) => p.id === project.id).created_at).toBe(
        '2026-03-04T05:06:07.123456',
      );
    });

    it('answers an empty list for a user with no projects', async () => {
      const loner = await make.admin('Loner');
      const res = await get('/projects', await make.apiKey(loner)).expect(200);
      expect(res.body).toEqual({ items: [], count: 0 });
    });
  });

  describe('GET /projects/{project_id}/channels', () => {
    it('lists every channel across the project’s accounts, negative chat ids kept as text', async () => {
      const first = await make.telegramAccount(admin, project);
      const second = await make.telegramAccount(admin, project);
      const a = await make.channel(admin, first.id, { chatId: -1001234567890, title: 'News' });
      const b = await make.channel(admin, second.id, { chatId: -1009876543210, title: 'Chat' });

      const res = await get(`/projects/${project.id}/channels`).expect(200);

      expect(res.body.count).toBe(2);
      expect(res.body.items).toEqual([
        {
          id: `telegram:${first.id}:-1001234567890`,
          platform: 'telegram',
          account_id: first.id,
          channel_id: '-1001234567890',
          title: 'News',
          username: a.username,
          needs_reconnect: false,
          url: `https://t.me/${a.username}`,
          limits: TELEGRAM_CHANNEL_LIMITS,
          missing_since: null,
          reconnect_by: null,
        },
        {
          id: `telegram:${second.id}:-1009876543210`,
          platform: 'telegram',
          account_id: second.id,
          channel_id: '-1009876543210',
          title: 'Chat',
          username: b.username,
          needs_reconnect: false,
          url: `https://t.me/${b.username}`,
          limits: TELEGRAM_CHANNEL_LIMITS,
          missing_since: null,
          reconnect_by: null,
        },
      ]);
      expect(typeof res.body.items[0].channel_id).toBe('string');
    });

    it('a chat without a username has no public link', async () => {
      const account = await make.telegramAccount(admin, project);
      const chatId = -1008000000000 - process.pid;
      world.telegram.addChat({ id: chatId, type: 'supergroup', title: 'Private' });
      await t.http
        .post(`/api/accounts/${account.id}/channels`)
        .set('Authorization', admin.auth)
        .send({ chat: String(chatId) })
        .expect(201);
      const res = await get(`/projects/${project.id}/channels`).expect(200);
      const item = res.body.items.find(
        (c: { channel_id: string }) => c.channel_id === String(chatId),
      );
      expect(item).toMatchObject({ username: null, url: null, limits: TELEGRAM_CHANNEL_LIMITS });
    });

    it('reports needs_reconnect from the account', async () => {
      const account = await make.telegramAccount(admin, project);
      const channel = await make.channel(admin, account.id);
      await make.refuseAccount(project, key, channel);
      const res = await get(`/projects/${project.id}/channels`).expect(200);
      const mine = res.body.items.filter(
        (c: { account_id: number }) => c.account_id === account.id,
      );
      expect(mine).toHaveLength(1);
      expect(mine[0].needs_reconnect).toBe(true);
    });

    it('answers 404 project_not_found for another user’s project and for a non-integer id', async () => {
      const stranger = await make.user('Stranger');
      const theirs = await make.project(stranger);
      for (const id of [String(theirs.id), 'abc', '1.5', '-1', '99999999999', '0x10']) {
        const res = await get(`/projects/${id}/channels`).expect(404);
        expect(res.body).toEqual({
          error: { code: 'project_not_found', message: expect.any(String) },
        });
      }
    });
  });

  describe('GET /usage', () => {
    it('counts the user’s projects and live keys', async () => {
      const user = await make.admin('Usage user');
      const k1 = await make.apiKey(user);
      await make.apiKey(user);
      const revoked = await make.apiKey(user);
      const list = await t.http.get('/api/api-keys').set('Authorization', user.auth).expect(200);
      const revokedId = list.body.items.find((k: { prefix: string }) =>
        revoked.startsWith(k.prefix),
      ).id;
      await t.http.delete(`/api/api-keys/${revokedId}`).set('Authorization', user.auth).expect(204);
      const expiring = await make.apiKey(user, {
        expires_at: new Date(Date.now() + 60_000).toISOString(),
      });
      await t.db.query(
        `UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE public_id = $1`,
        [expiring.slice(10, 26)],
      );
      await make.project(user, 'One');
      await make.project(user, 'Two');

      const res = await get('/usage', k1).expect(200);
      expect(res.body).toEqual({ posts_this_month: 0, projects_count: 2, api_keys_count: 2 });
    });
  });
});

import { Factory, SignedInUser, TestProject } from '../support/factories/factories';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { TestApp } from '../support/test-app';

describe('Application API: sessions, projects, Telegram accounts', () => {
  let t: TestApp;
  let telegram: TelegramStandIn;
  let make: Factory;
  let owner: SignedInUser;
  let project: TestProject;

  let world: TelegramWorld;

  beforeAll(async () => {
    world = await startWithTelegram();
    ({ t, telegram, make } = world);
    owner = await make.user('Owner');
    project = await make.project(owner);
  });

  afterAll(() => world?.close());

  describe('register, login, logout', () => {
    it('registers, logs in with the same password, and logs out for good', async () => {
      const reg = await t.http
        .post('/api/auth/register')
        .send({ email: 'Ada@Example.com', password: 'analytical engine', name: 'Ada' })
        .expect(201);
      expect(reg.body).toEqual({
        token: expect.any(String),
        user: {
          id: expect.any(Number),
          email: 'ada@example.com',
          name: 'Ada',
          is_admin: false,
          is_operator: false,
        },
      });

      const login = await t.http
        .post('/api/auth/login')
        .send({ email: 'ada@example.com', password: 'analytical engine' })
        .expect(200);
      expect(login.body.user).toEqual(reg.body.user);
      const auth = `Bearer ${login.body.token}`;
      await t.http.get('/api/projects').set('Authorization', auth).expect(200);

      await t.http.post('/api/auth/logout').set('Authorization', auth).expect(204);
      const after = await t.http.get('/api/projects').set('Authorization', auth).expect(401);
      expect(after.body.error.code).toBe('unauthorized');
      // The registration session is separate and still works.
      await t.http
        .get('/api/projects')
        .set('Authorization', `Bearer ${reg.body.token}`)
        .expect(200);
    });

    it('answers a wrong password and an unknown email alike, 401 unauthorized', async () => {
      const wrong = await t.http
        .post('/api/auth/login')
        .send({ email: owner.email, password: 'not the password' })
        .expect(401);
      const unknown = await t.http
        .post('/api/auth/login')
        .send({ email: 'nobody@example.com', password: 'whatever1' })
        .expect(401);
      expect(wrong.body).toEqual(unknown.body);
      expect(wrong.body.error.code).toBe('unauthorized');
    });

    it('refuses a second account with the same email (409 email_taken)', async () => {
      const res = await t.http
        .post('/api/auth/register')
        .send({ email: owner.email.toUpperCase(), password: 'another password', name: 'Dup' })
        .expect(409);
      expect(res.body.error.code).toBe('email_taken');
    });

    it.each([
      ['a bad email', { email: 'not-an-email', password: 'long enough', name: 'X' }],
      ['a short password', { email: 'short@example.com', password: 'short', name: 'X' }],
      ['a missing name', { email: 'noname@example.com', password: 'long enough' }],
    ])('refuses %s with 400 validation_failed naming the field', async (_label, body) => {
      const res = await t.http.post('/api/auth/register').send(body).expect(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details.length).toBeGreaterThan(0);
    });

    it('stops accepting a session once it has expired', async () => {
      const user = await make.user('Expiring');
      await t.http.get('/api/projects').set('Authorization', user.auth).expect(200);
      await t.db.query(
        `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`,
        [user.id],
      );
      const res = await t.http.get('/api/projects').set('Authorization', user.auth).expect(401);
      expect(res.body.error.code).toBe('unauthorized');
    });

    it('requires a session on application routes', async () => {
      for (const header of [undefined, 'Bearer nope', 'Basic abc']) {
        const req = t.http.get('/api/projects');
        const res = await (header ? req.set('Authorization', header) : req).expect(401);
        expect(res.body.error.code).toBe('unauthorized');
      }
    });
  });

  describe('projects', () => {
    it('creates a project owned by the caller, with role and all nine flags', async () => {
      const res = await t.http
        .post('/api/projects')
        .set('Authorization', owner.auth)
        .send({ name: 'Daily', timezone: 'America/New_York' })
        .expect(201);
      expect(res.body).toMatchObject({
        name: 'Daily',
        timezone: 'America/New_York',
        is_owner: true,
        role: 'owner',
      });
      expect(Object.keys(res.body.my_permissions)).toHaveLength(9);
      expect(Object.values(res.body.my_permissions).every((v) => v === true)).toBe(true);
      const { rows } = await t.db.query('SELECT owner_id FROM projects WHERE id = $1', [
        res.body.id,
      ]);
      expect(rows[0].owner_id).toBe(owner.id);
    });

    it('takes UTC when the time zone is not given', async () => {
      const res = await t.http
        .post('/api/projects')
        .set('Authorization', owner.auth)
        .send({ name: 'No zone' })
        .expect(201);
      expect(res.body).toMatchObject({ name: 'No zone', timezone: 'UTC' });
      const { rows } = await t.db.query('SELECT timezone FROM projects WHERE id = $1', [
        res.body.id,
      ]);
      expect(rows[0].timezone).toBe('UTC');
    });

    it.each(['Mars/Olympus', 'UTC+3', '', 'europe moscow'])(
      'refuses the time zone %p',
      async (timezone) => {
        const res = await t.http
          .post('/api/projects')
          .set('Authorization', owner.auth)
          .send({ name: 'X', timezone })
          .expect(400);
        expect(res.body.error.code).toBe('validation_failed');
      },
    );
  });

  describe('Telegram accounts and channels', () => {
    it('connects a bot checked with getMe and seals its token', async () => {
      const token = telegram.addBot('herald_news_bot');
      const res = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, platform: 'telegram', bot_token: token })
        .expect(201);
      expect(res.body).toMatchObject({
        platform: 'telegram',
        title: 'Bot herald_news_bot',
        username: 'herald_news_bot',
        needs_reconnect: false,
      });
      expect(telegram.callsOf('getMe').at(-1)?.token).toBe(token);

      const { rows } = await t.db.query('SELECT * FROM accounts WHERE id = $1', [res.body.id]);
      expect(JSON.stringify(rows)).not.toContain(token);
      expect(JSON.stringify(rows)).not.toContain(token.split(':')[1]);
    });

    it('answers 400 telegram_rejected with Telegram’s description for a token Telegram refuses', async () => {
      const res = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send({
          project_id: project.id,
          platform: 'telegram',
          bot_token: '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        })
        .expect(400);
      expect(res.body.error).toEqual({
        code: 'telegram_rejected',
        message: 'Telegram rejected the request: Unauthorized',
      });
      const { rows } = await t.db.query(
        'SELECT count(*)::int AS n FROM accounts WHERE project_id = $1',
        [project.id],
      );
      expect(rows[0].n).toBe(1);
    });

    it('answers 502 telegram_unavailable when Telegram cannot be reached', async () => {
      telegram.script('getMe', { status: 502 });
      const res = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, platform: 'telegram', bot_token: telegram.addBot() })
        .expect(502);
      expect(res.body.error.code).toBe('telegram_unavailable');
    });

    it("answers Telegram's 429 at getMe and getChat as 429 rate_limit_exceeded with its retry_after, storing nothing", async () => {
      const counts = async () =>
        (
          await t.db.query(
            `SELECT (SELECT count(*) FROM accounts WHERE project_id = $1)::int AS accounts,
                    (SELECT count(*) FROM channels c JOIN accounts a ON a.id = c.account_id
                      WHERE a.project_id = $1)::int AS channels`,
            [project.id],
          )
        ).rows[0] as { accounts: number; channels: number };
      const account = await make.telegramAccount(owner, project);
      const before = await counts();
      telegram.script('getMe', {
        status: 429,
        description: 'Too Many Requests: retry after 7',
        retryAfter: 7,
      });
      const connect = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, platform: 'telegram', bot_token: telegram.addBot() })
        .expect(429);
      expect(connect.body.error).toEqual({
        code: 'rate_limit_exceeded',
        message: 'Telegram is limiting requests for this account; try again in 7 s',
      });
      expect(connect.headers['retry-after']).toBe('7');

      telegram.addChat({
        id: -1001555000999,
        type: 'channel',
        title: 'Later',
        username: 'later_news',
      });
      telegram.script('getChat', { status: 429, description: 'Too Many Requests' });
      const add = await t.http
        .post(`/api/accounts/${account.id}/channels`)
        .set('Authorization', owner.auth)
        .send({ chat: '@later_news' })
        .expect(429);
      expect(add.body.error.code).toBe('rate_limit_exceeded');
      // No retry_after in the answer: the caller is told a minute.
      expect(add.headers['retry-after']).toBe('60');
      expect(await counts()).toEqual(before);
    });

    it('adds a channel by @username checked with getChat, keeping the numeric id as text; twice is 409', async () => {
      const account = await make.telegramAccount(owner, project);
      telegram.addChat({
        id: -1001555000111,
        type: 'channel',
        title: 'Herald News',
        username: 'herald_news',
      });
      const res = await t.http
        .post(`/api/accounts/${account.id}/channels`)
        .set('Authorization', owner.auth)
        .send({ chat: '@herald_news' })
        .expect(201);
      expect(res.body).toEqual({
        id: `telegram:${account.id}:-1001555000111`,
        platform: 'telegram',
        account_id: account.id,
        channel_id: '-1001555000111',
        title: 'Herald News',
        username: 'herald_news',
        needs_reconnect: false,
        url: 'https://t.me/herald_news',
        limits: {
          text_max: 4096,
          text_unit: 'utf16',
          media_max: 10,
          media_kinds: ['image', 'video'],
          media_max_bytes: { image: 52_428_800, video: 52_428_800 },
        },
        missing_since: null,
        reconnect_by: null,
      });
      const getChat = telegram.callsOf('getChat').at(-1);
      expect(getChat).toMatchObject({ token: account.token, params: { chat_id: '@herald_news' } });

      const again = await t.http
        .post(`/api/accounts/${account.id}/channels`)
        .set('Authorization', owner.auth)
        .send({ chat: '-1001555000111' })
        .expect(409);
      expect(again.body.error.code).toBe('channel_exists');
    });

    it('answers 400 telegram_rejected for a chat Telegram does not know', async () => {
      const account = await make.telegramAccount(owner, project);
      const res = await t.http
        .post(`/api/accounts/${account.id}/channels`)
        .set('Authorization', owner.auth)
        .send({ chat: '@nowhere_chat' })
        .expect(400);
      expect(res.body.error).toEqual({
        code: 'telegram_rejected',
        message: 'Telegram rejected the request: Bad Request: chat not found',
      });
    });

    it('replaces a token of the same bot (clearing needs_reconnect) and removes an account with its channels', async () => {
      const { owner: admin, project: own, key } = await make.owner('Token replaced');
      const account = await make.telegramAccount(admin, own);
      const channel = await make.channel(admin, account.id);
      await make.refuseAccount(own, key, channel);
      const newToken = telegram.rotateToken(account.token);
      const res = await t.http
        .put(`/api/accounts/${account.id}`)
        .set('Authorization', admin.auth)
        .send({ bot_token: newToken })
        .expect(200);
      expect(res.body).toMatchObject({ id: account.id, needs_reconnect: false });

      await t.http
        .delete(`/api/accounts/${account.id}`)
        .set('Authorization', admin.auth)
        .expect(204);
      const list = await t.http
        .get(`/api/analytics/channels?project_id=${own.id}`)
        .set('Authorization', admin.auth)
        .expect(200);
      expect((list.body.items as { id: string }[]).map((c) => c.id)).not.toContain(channel.id);
      const gone = await t.http
        .delete(`/api/accounts/${account.id}`)
        .set('Authorization', admin.auth)
        .expect(404);
      expect(gone.body.error.code).toBe('account_not_found');
    });

    it('hides another user’s account (404 account_not_found) and project (404 project_not_found)', async () => {
      const account = await make.telegramAccount(owner, project);
      const stranger = await make.user('Stranger');
      const put = await t.http
        .put(`/api/accounts/${account.id}`)
        .set('Authorization', stranger.auth)
        .send({ bot_token: telegram.addBot() })
        .expect(404);
      expect(put.body.error.code).toBe('account_not_found');
      const post = await t.http
        .post('/api/accounts')
        .set('Authorization', stranger.auth)
        .send({ project_id: project.id, platform: 'telegram', bot_token: telegram.addBot() })
        .expect(404);
      expect(post.body.error.code).toBe('project_not_found');
    });
  });

  describe('secrets at rest', () => {
    it('keeps no password, session token, key secret or bot token in clear anywhere in the database', async () => {
      const password = 'a very particular password';
      const reg = await t.http
        .post('/api/auth/register')
        .send({ email: 'secret@example.com', password, name: 'S' })
        .expect(201);
      const account = await make.telegramAccount(owner, project);
      const admin = await make.admin();
      const key = await make.apiKey(admin);

      const { rows } = await t.db.query(`
        SELECT (SELECT json_agg(u) FROM users u)::text || (SELECT json_agg(s) FROM sessions s)::text ||
               (SELECT json_agg(k) FROM api_keys k)::text || (SELECT json_agg(a) FROM accounts a)::text AS everything`);
      const everything: string = rows[0].everything;
      for (const secret of [
        password,
        reg.body.token,
        owner.token,
        key.split('.')[1],
        account.token,
        account.token.split(':')[1],
      ]) {
        expect(everything).not.toContain(secret);
      }
    });
  });
});

import { runCli } from '../../src/operations/cli/commands';
import { Factory } from '../support/factories/factories';
import { startTestApp, TestApp } from '../support/test-app';

/** `npm run cli -- <command>`: the same function the CLI's main runs, in process. */
describe('CLI', () => {
  let t: TestApp;
  let make: Factory;

  beforeAll(async () => {
    t = await startTestApp();
    make = new Factory(t);
  });

  afterAll(() => t?.close());

  async function cli(...args: string[]): Promise<{ code: number; lines: string[] }> {
    const lines: string[] = [];
    const code = await runCli(args, t.config, { out: (line) => lines.push(line) });
    return { code, lines };
  }

  it('grant-admin makes an existing user an administrator, and saying it twice is harmless', async () => {
    const user = await make.user();
    expect(await cli('grant-admin', user.email.toUpperCase())).toEqual({
      code: 0,
      lines: [`${user.email} is an administrator`],
    });
    expect((await cli('grant-admin', user.email)).code).toBe(0);
    const { rows } = await t.db.query('SELECT is_admin FROM users WHERE id = $1', [user.id]);
    expect(rows[0].is_admin).toBe(true);
    await t.http.get('/api/api-keys').set('Authorization', user.auth).expect(200);
  });

  it('grant-admin refuses an unknown email with exit code 1 and changes nothing', async () => {
    const { rows: before } = await t.db.query(
      'SELECT count(*)::int AS n FROM users WHERE is_admin',
    );
    expect(await cli('grant-admin', 'nobody@example.com')).toEqual({
      code: 1,
      lines: ['No user with email nobody@example.com'],
    });
    const { rows: after } = await t.db.query('SELECT count(*)::int AS n FROM users WHERE is_admin');
    expect(after[0].n).toBe(before[0].n);
  });

  it('grant-operator and revoke-operator open and close the queue dashboard, apart from administration', async () => {
    const user = await make.user();
    const board = () => t.http.get('/admin/queues/api/queues').set('Authorization', user.auth);
    await board().expect(403);
    expect(await cli('grant-operator', user.email)).toEqual({
      code: 0,
      lines: [`${user.email} is an operator`],
    });
    await board().expect(200);
    // An operator is no administrator: the API keys stay closed.
    await t.http.get('/api/api-keys').set('Authorization', user.auth).expect(403);
    const me = await t.http.get('/api/auth/me').set('Authorization', user.auth).expect(200);
    expect(me.body).toMatchObject({ is_admin: false, is_operator: true });
    expect(await cli('revoke-operator', user.email)).toEqual({
      code: 0,
      lines: [`${user.email} is no longer an operator`],
    });
    await board().expect(403);
  });

  it('revoke-admin takes the API keys menu away and leaves the dashboard as it was', async () => {
    const user = await make.admin();
    await t.http.get('/api/api-keys').set('Authorization', user.auth).expect(200);
    expect(await cli('revoke-admin', user.email)).toEqual({
      code: 0,
      lines: [`${user.email} is no longer an administrator`],
    });
    await t.http.get('/api/api-keys').set('Authorization', user.auth).expect(403);
    const { rows } = await t.db.query('SELECT is_admin, is_operator FROM users WHERE id = $1', [
      user.id,
    ]);
    expect(rows[0]).toEqual({ is_admin: false, is_operator: false });
    expect(await cli('revoke-operator', 'nobody@example.com')).toEqual({
      code: 1,
      lines: ['No user with email nobody@example.com'],
    });
  });

  it('reset-password prints a new password that signs in, ends the old sessions, and refuses the old password', async () => {
    const user = await make.user();
    await t.http.get('/api/auth/me').set('Authorization', user.auth).expect(200);
    const { code, lines } = await cli('reset-password', user.email);
    expect({ code, lines: lines.length }).toEqual({ code: 0, lines: 1 });
    const [password] = lines;
    expect(password).toMatch(/^[A-Za-z0-9_-]{16}$/);
    await t.http.get('/api/auth/me').set('Authorization', user.auth).expect(401);
    const login = (pw: string) =>
      t.http.post('/api/auth/login').send({ email: user.email, password: pw });
    expect((await login('correct horse battery')).status).toBe(401);
    const signedIn = await login(password).expect(200);
    expect(signedIn.body.user.email).toBe(user.email);
    const again = await cli('reset-password', user.email);
    expect(again.lines[0]).not.toBe(password);
    expect(await cli('reset-password', 'nobody@example.com')).toEqual({
      code: 1,
      lines: ['No user with email nobody@example.com'],
    });
  });

  it('create-key prints a new live key, or a test key with --test, that acts for the user', async () => {
    const user = await make.user();
    await t.http
      .post('/api/projects')
      .set('Authorization', user.auth)
      .send({ name: 'Keyed' })
      .expect(201);
    for (const [args, prefix] of [
      [[], 'hrld_live_'],
      [['--test'], 'hrld_test_'],
    ] as const) {
      const { code, lines } = await cli('create-key', user.email, ...args);
      expect({ code, lines: lines.length, prefix: lines[0].slice(0, 10) }).toEqual({
        code: 0,
        lines: 1,
        prefix,
      });
      const projects = await t.http
        .get('/api/public/v1/projects')
        .set('Authorization', `Bearer ${lines[0]}`)
        .expect(200);
      expect(projects.body.items.map((p: { name: string }) => p.name)).toEqual(['Keyed']);
    }
    const { rows } = await t.db.query('SELECT mode FROM api_keys WHERE user_id = $1 ORDER BY id', [
      user.id,
    ]);
    expect(rows.map((r) => r.mode)).toEqual(['live', 'test']);
    expect(await cli('create-key', 'nobody@example.com')).toEqual({
      code: 1,
      lines: ['No user with email nobody@example.com'],
    });
  });

  it.each([
    [['grant-operator'], 2],
    [['revoke-admin', 'a@example.com', 'b@example.com'], 2],
    [['grant-admin'], 2],
    [['grant-admin', 'a@example.com', 'b@example.com'], 2],
    [['drop-everything'], 2],
    [['reset-password'], 2],
    [['create-key', 'a@example.com', '--live'], 2],
    [['create-key', 'a@example.com', 'b@example.com'], 2],
    [[], 0],
  ])('answers %p with usage and exit code %p', async (args, code) => {
    const result = await cli(...args);
    expect(result.code).toBe(code);
    expect(result.lines.join('\n')).toMatch(/^Usage: npm run cli -- /);
  });
});

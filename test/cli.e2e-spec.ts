import { runCli } from '../src/cli/commands';
import { Factory } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

/** `npm run cli -- <command>` (D13): the same function the CLI's main runs, in process. */
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

  it.each([
    [['grant-operator'], 2],
    [['revoke-admin', 'a@example.com', 'b@example.com'], 2],
    [['grant-admin'], 2],
    [['grant-admin', 'a@example.com', 'b@example.com'], 2],
    [['drop-everything'], 2],
    [[], 0],
  ])('answers %p with usage and exit code %p', async (args, code) => {
    const result = await cli(...args);
    expect(result.code).toBe(code);
    expect(result.lines.join('\n')).toMatch(/^Usage: npm run cli -- /);
  });
});

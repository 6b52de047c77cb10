import { TokenSweep } from '../../src/domains/connections/renewal/token-sweep';
import { SecretsService } from '../../src/infrastructure/config/secrets.service';
import {
  startWithThreads,
  type ThreadsAccount,
  type ThreadsScene,
  type ThreadsWorld,
} from '../support/factories/threads-world';
import { waitForPostStatus } from '../support/publication';
import type { ThreadsServer } from '../support/stand-ins/threads-server';
import type { TestApp } from '../support/test-app';

const MINUTE = 60_000;

/**
 * Threads' long-lived tokens renewed through Herald's renewal (at a send, by the sweep), end to end:
 * "time passes" by moving the token's issue and expiry back, in Herald's row and at the stand-in.
 */
describe('Threads: renewing tokens', () => {
  let world: ThreadsWorld;
  let t: TestApp;
  let threads: ThreadsServer;
  let scene: ThreadsScene;
  const connect = () => scene.connect();
  const publish = (to: ThreadsAccount, body: Record<string, unknown>, apiKey?: string) =>
    scene.publish(to, body, apiKey);

  beforeAll(async () => {
    world = await startWithThreads();
    ({ t, threads } = world);
    scene = await world.scene('Threads renewals');
  });

  afterAll(async () => {
    await world?.close();
  });

  /** As if the token was given `ageMs` ago and expires in `expiresInMs` (Meta agreeing). */
  async function age(to: ThreadsAccount, ageMs: number, expiresInMs: number) {
    const secrets = t.app.get(SecretsService);
    const { rows } = await t.db.query('SELECT credentials_encrypted FROM accounts WHERE id = $1', [
      to.id,
    ]);
    const secret = JSON.parse(secrets.open(rows[0].credentials_encrypted as string)) as Record<
      string,
      unknown
    >;
    secret.issued_at_ms = Date.now() - ageMs;
    secret.expires_at_ms = Date.now() + expiresInMs;
    await t.db.query(
      `UPDATE accounts SET credentials_encrypted = $2, token_expires_at = now() + make_interval(secs => $3::float8 / 1000),
              token_obtained_at = now() - make_interval(secs => $4::float8 / 1000) WHERE id = $1`,
      [to.id, secrets.seal(JSON.stringify(secret)), expiresInMs, ageMs],
    );
    threads.age(to.profile, ageMs);
    return secret.access_token as string;
  }

  it('at a send, a token expiring within 5 minutes is renewed first (th_refresh_token)', async () => {
    const to = await connect();
    const old = await age(to, 59 * 24 * 60 * MINUTE, 2 * MINUTE);
    const postId = await publish(to, { text: 'After a renewal' });
    expect((await waitForPostStatus(t, postId)).status).toBe('published');
    const [refresh] = threads.callsOf('refresh_token').filter((c) => c.params.access_token === old);
    expect(refresh).toMatchObject({ method: 'GET', path: '/refresh_access_token', status: 200 });
    const [made] = threads
      .callsOf('create_container')
      .filter((c) => c.path.includes(to.profile.id));
    expect(made.params.access_token).not.toBe(old);
    const { rows } = await t.db.query('SELECT token_expires_at FROM accounts WHERE id = $1', [
      to.id,
    ]);
    expect(Date.parse(rows[0].token_expires_at as string) - Date.now()).toBeGreaterThan(
      59 * 24 * 60 * MINUTE,
    );
  });

  it('the sweep renews a token within a day of its expiry; a dead one flags its account once', async () => {
    const [alive, dead] = [await connect(), await connect()];
    const old = await age(alive, 59 * 24 * 60 * MINUTE, 12 * 60 * MINUTE);
    await age(dead, 59 * 24 * 60 * MINUTE, 12 * 60 * MINUTE);
    threads.revoke(dead.profile);
    expect(await t.app.get(TokenSweep).sweep()).toBe(1);
    expect(
      threads.callsOf('refresh_token').filter((c) => c.params.access_token === old),
    ).toHaveLength(1);
    const { rows } = await t.db.query(
      'SELECT id, needs_reconnect, token_expires_at FROM accounts WHERE id = ANY($1) ORDER BY id',
      [[alive.id, dead.id]],
    );
    expect(rows.map((r) => r.needs_reconnect)).toEqual([false, true]);
    expect(Date.parse(rows[0].token_expires_at as string) - Date.now()).toBeGreaterThan(
      59 * 24 * 60 * MINUTE,
    );
    // Renewed, the account's token is the new one; the dead one is never asked again.
    expect(await t.app.get(TokenSweep).sweep()).toBe(0);
    const postId = await publish(alive, { text: 'With the renewed token' });
    expect((await waitForPostStatus(t, postId)).status).toBe('published');
  });

  it('a token under a day old is not sent to renewal: it is used as it is, the account never flagged', async () => {
    const to = await connect();
    const token = await age(to, 60 * MINUTE, 2 * MINUTE);
    const refreshes = threads.callsOf('refresh_token').length;
    const postId = await publish(to, { text: 'Young token' });
    expect((await waitForPostStatus(t, postId)).status).toBe('published');
    expect(threads.callsOf('refresh_token')).toHaveLength(refreshes);
    const [made] = threads
      .callsOf('create_container')
      .filter((c) => c.path.includes(to.profile.id));
    expect(made.params.access_token).toBe(token);
    const { rows } = await t.db.query('SELECT needs_reconnect FROM accounts WHERE id = $1', [
      to.id,
    ]);
    expect(rows[0].needs_reconnect).toBe(false);
  });
});

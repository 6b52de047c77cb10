import { TokenRenewals } from '../../src/domains/connections/renewal/token-renewals';
import { TokenSweep } from '../../src/domains/connections/renewal/token-sweep';
import type { SignedInUser, TestProject } from '../support/factories/factories';
import { startWithX, type XTestAccount, type XWorld } from '../support/factories/x-world';
import { freePort } from '../support/free-port';
import {
  heraldReady,
  spawnHerald,
  stopHerald,
  type HeraldProcess,
} from '../support/herald-process';
import { waitForPostStatus } from '../support/publication';
import { startTestApp, TEST_REDIS_URL, type TestApp } from '../support/test-app';
import { waitFor } from '../support/waits';
import { WebhookReceiver } from '../support/webhook-receiver';

const METRICS_TOKEN = 'renewal-metrics-token-0123456789';

/**
 * Expiring OAuth tokens, renewed before they expire (at a send within 5 minutes, by the sweep
 * within a day or a tenth of their life), one renewal per account across every process, the
 * rotated refresh token stored before use; a refusal for good flags the account once, anything
 * else flags nothing. Run on X, whose tokens live two hours and whose refresh tokens rotate.
 */
describe('Renewing expiring access tokens', () => {
  let world: XWorld;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    world = await startWithX({
      RATE_LIMIT_CREATE_POST: '1000',
      PUBLICATION_RETRY_BASE_MS: '50',
      TOKEN_RENEWAL_TIMEOUT_MS: '500',
      // The tests run each sweep themselves.
      TOKEN_SWEEP_INTERVAL_MS: '3600000',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
    });
    ({ owner, project, key } = await world.make.owner('Renewals'));
    receiver = await new WebhookReceiver().start();
    const hook = await world.t.http
      .post(`/api/public/v1/projects/${project.id}/webhooks`)
      .set('Authorization', `Bearer ${key}`)
      .send({ url: receiver.url('/reconnect'), events: ['channel.needs_reconnect'] })
      .expect(201);
    receiver.expect('/reconnect', hook.body.secret as string);
  });
  afterAll(async () => {
    await receiver?.stop();
    await world?.close();
  });
  afterEach(() => {
    world.x.tokenSeconds = 7_200;
  });

  const publish = async (account: XTestAccount, text: string) =>
    (
      await world.t.http
        .post(`/api/public/v1/projects/${project.id}/posts`)
        .set('Authorization', `Bearer ${key}`)
        .send({ text, targets: [{ channel_ref: account.channelRef }], publish_now: true })
        .expect(201)
    ).body.id as number;

  /** An account whose access token lives `seconds`. */
  async function connectedFor(seconds: number): Promise<XTestAccount> {
    world.x.tokenSeconds = seconds;
    const account = await world.xAccount(owner, project);
    world.x.tokenSeconds = 7_200;
    return account;
  }

  const accountRow = async (id: number) =>
    (
      await world.t.db.query<{
        needs_reconnect: boolean;
        renewal_failures: number;
        renew_after_in: number | null;
        expires_in: number;
        credentials_encrypted: string;
      }>(
        `SELECT needs_reconnect, renewal_failures, credentials_encrypted,
                extract(epoch FROM renew_after - now())::float8 AS renew_after_in,
                extract(epoch FROM token_expires_at - now())::float8 AS expires_in
           FROM accounts WHERE id = $1`,
        [id],
      )
    ).rows[0];

  const reconnectEvents = (accountId: number) =>
    receiver
      .of('/reconnect')
      .filter((d) => (d.payload.data as { account_id?: number }).account_id === accountId);

  it('renews a token that expires in two minutes before the send, and sends with the new one', async () => {
    const account = await connectedFor(120);
    const postId = await publish(account, 'Sent with a renewed token');
    expect((await waitForPostStatus(world.t, postId)).status).toBe('published');
    expect(world.x.renewalsOf(account.user)).toBe(1);
    const renewal = world.x.callsOf('token').filter((c) => c.body.grant_type === 'refresh_token');
    const post = world.x.callsOf('create_post').at(-1)!;
    expect(renewal.at(-1)!.at).toBeLessThanOrEqual(post.at);
    // The renewal answered the access token the post went with.
    const issued = world.x.callsOf('create_post').at(-1)!.headers.authorization;
    expect(
      world.x.callsOf('create_post').filter((c) => c.headers.authorization === issued),
    ).toHaveLength(1);
    expect((await accountRow(account.id)).expires_in).toBeGreaterThan(7_000);
  });

  it('makes exactly one renewal when two workers and two API instances race for it', async () => {
    const instances: TestApp[] = [];
    try {
      for (const role of ['worker', 'worker', 'api', 'api'])
        instances.push(
          await startTestApp(
            { ...world.x.env(), APP_ROLE: role, TOKEN_SWEEP_INTERVAL_MS: '3600000' },
            { shareWith: world.t },
          ),
        );
      const account = await connectedFor(2);
      await waitFor(async () => (await accountRow(account.id)).expires_in < 0, 5_000);
      // The platform answers slowly, so every instance asks while the first renewal is under way.
      world.x.script('token', { delayMs: 300 });
      const row = await accountRow(account.id);
      const held = {
        accountId: account.id,
        platform: 'x',
        sealed: row.credentials_encrypted,
        expiresAtMs: Date.now() - 1,
        renewable: true,
      };
      const answers = await Promise.all(
        instances.flatMap((instance) => [
          instance.app.get(TokenSweep).sweep(),
          instance.app.get(TokenRenewals).forSend(held),
          instance.app.get(TokenRenewals).forSend(held),
        ]),
      );
      expect(world.x.renewalsOf(account.user)).toBe(1);
      // Every sender got the one renewed token.
      const secrets = new Set(
        answers.filter((a) => typeof a === 'object').map((a) => (a as { secret: string }).secret),
      );
      expect(secrets.size).toBe(1);
      expect((await accountRow(account.id)).needs_reconnect).toBe(false);
    } finally {
      for (const instance of instances) await instance.close();
    }
  });

  it.each<[string, Parameters<XWorld['x']['script']>[1]]>([
    ['a 5xx', { status: 503, body: { title: 'Service Unavailable', status: 503 } }],
    [
      'a 429',
      {
        status: 429,
        body: { title: 'Too Many Requests', status: 429 },
        headers: { 'x-rate-limit-reset': String(Math.ceil(Date.now() / 1000) + 60) },
      },
    ],
    ['a time-out', { hang: true }],
    ['a dropped connection', { beforeServing: 'drop' }],
  ])(
    'never flags the account for %s at the token endpoint: the sweep backs off',
    async (_name, answer) => {
      const account = await connectedFor(2);
      await waitFor(async () => (await accountRow(account.id)).expires_in < 0, 5_000);
      world.x.script('token', { ...answer, user: account.user.id });
      await world.t.app.get(TokenSweep).sweep();
      const row = await accountRow(account.id);
      expect(row).toMatchObject({ needs_reconnect: false, renewal_failures: 1 });
      // The token has expired: the sweep tries again soon (5 s), not after the backoff of a minute.
      expect(row.renew_after_in).toBeGreaterThan(1);
      expect(world.x.renewalsOf(account.user)).toBe(0);
      expect(reconnectEvents(account.id)).toEqual([]);
    },
  );

  it('never flags the account when the token endpoint refuses connections, and sends while the token is valid', async () => {
    const account = await connectedFor(120);
    const elsewhere = await startTestApp(
      { ...world.x.env(), X_API_URL: `http://127.0.0.1:${await freePort()}`, APP_ROLE: 'api' },
      { shareWith: world.t },
    );
    try {
      const row = await accountRow(account.id);
      const held = await elsewhere.app.get(TokenRenewals).forSend({
        accountId: account.id,
        platform: 'x',
        sealed: row.credentials_encrypted,
        expiresAtMs: Date.now() + 120_000,
        renewable: true,
      });
      // The current token, still valid for two minutes, serves.
      expect(held.sealed).toBe(row.credentials_encrypted);
    } finally {
      await elsewhere.close();
    }
    expect(await accountRow(account.id)).toMatchObject({
      needs_reconnect: false,
      renewal_failures: 1,
    });
    expect(reconnectEvents(account.id)).toEqual([]);
  });

  it('flags an account whose refresh token X refuses once, with one event, however often it is tried', async () => {
    const account = await connectedFor(2);
    world.x.revoke(account.user);
    await waitFor(async () => (await accountRow(account.id)).expires_in < 0, 5_000);
    await Promise.all([world.t.app.get(TokenSweep).sweep(), world.t.app.get(TokenSweep).sweep()]);
    // A post to it is refused at once, as for any account that must be reconnected.
    const refused = await world.t.http
      .post(`/api/public/v1/projects/${project.id}/posts`)
      .set('Authorization', `Bearer ${key}`)
      .send({
        text: 'Never sent',
        targets: [{ channel_ref: account.channelRef }],
        publish_now: true,
      })
      .expect(400);
    expect(refused.body.error.details[0].code).toBe('channel_needs_reconnect');
    expect((await accountRow(account.id)).needs_reconnect).toBe(true);
    await waitFor(() => reconnectEvents(account.id).length > 0);
    await world.t.app.get(TokenSweep).sweep();
    expect(reconnectEvents(account.id)).toHaveLength(1);
    const refusals = world.x.callsOf('token').filter((c) => c.status === 400);
    expect(refusals.length).toBeGreaterThanOrEqual(1);
  });
});

describe('A rotated refresh token and a worker killed after the renewal', () => {
  let world: XWorld;
  let worker: HeraldProcess | undefined;

  beforeAll(async () => {
    world = await startWithX({
      APP_ROLE: 'api',
      PUBLICATION_LOCK_MS: '1000',
      PUBLICATION_SEND_TIMEOUT_MS: '1000',
      PUBLICATION_RETRY_BASE_MS: '50',
    });
  });
  afterAll(async () => {
    if (worker) await stopHerald(worker);
    await world?.close();
  });

  it('keeps the rotated refresh token: the next renewal, by another process, works', async () => {
    const { owner, project, key } = await world.make.owner('Killed worker');
    world.x.tokenSeconds = 120;
    const account = await world.xAccount(owner, project);
    const connected = (
      await world.t.db.query('SELECT credentials_encrypted FROM accounts WHERE id = $1', [
        account.id,
      ])
    ).rows[0].credentials_encrypted as string;
    // The post hangs at X: the worker has renewed and is sending when it is killed.
    world.x.script('create_post', { hang: true });
    const postId = (
      await world.t.http
        .post(`/api/public/v1/projects/${project.id}/posts`)
        .set('Authorization', `Bearer ${key}`)
        .send({
          text: 'Across a killed worker',
          targets: [{ channel_ref: account.channelRef }],
          publish_now: true,
        })
        .expect(201)
    ).body.id as number;
    const t = world.t;
    worker = spawnHerald('worker', await freePort(), {
      ...world.x.env(),
      DATABASE_URL: t.config.databaseUrl,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: t.config.redisKeyPrefix,
      APP_SECRET: t.config.appSecret,
      MEDIA_STORAGE_DIR: t.mediaDir,
      PUBLIC_BASE_URL: t.config.publicBaseUrl,
      PUBLICATION_LOCK_MS: '1000',
      PUBLICATION_SEND_TIMEOUT_MS: '1000',
      METRICS_TOKEN,
      LOG_LEVEL: 'warn',
    });
    await heraldReady(worker, 120_000, METRICS_TOKEN);
    await waitFor(() => world.x.callsOf('create_post').length > 0, 30_000);
    expect(world.x.renewalsOf(account.user)).toBe(1);
    const renewed = (
      await t.db.query('SELECT credentials_encrypted FROM accounts WHERE id = $1', [account.id])
    ).rows[0].credentials_encrypted as string;
    expect(renewed).not.toBe(connected);
    worker.child.kill('SIGKILL');
    await worker.exit;
    worker = undefined;

    // Another process must renew again: only the refresh token X rotated last still works.
    world.x.expireTokens(account.user);
    const next = await startTestApp(
      {
        ...world.x.env(),
        APP_ROLE: 'worker',
        PUBLICATION_LOCK_MS: '1000',
        PUBLICATION_SEND_TIMEOUT_MS: '1000',
        PUBLICATION_RETRY_BASE_MS: '50',
      },
      { shareWith: t },
    );
    try {
      expect((await waitForPostStatus(t, postId, undefined, 30_000)).status).toBe('published');
    } finally {
      await next.close();
    }
    expect(world.x.renewalsOf(account.user)).toBe(2);
    expect(world.x.postsOf(account.user)).toHaveLength(1);
    const { rows } = await t.db.query('SELECT needs_reconnect FROM accounts WHERE id = $1', [
      account.id,
    ]);
    expect(rows[0].needs_reconnect).toBe(false);
  });
});

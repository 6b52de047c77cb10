import type { Response } from 'supertest';
import { Factory, SignedInUser, TestProject } from '../support/factories/factories';
import { waitForPostStatus } from '../support/publication';
import { TcpProxy } from '../support/tcp-proxy';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startTestApp, TEST_REDIS_URL, TestApp } from '../support/test-app';
import { sleep } from '../support/waits';

const PUBLIC = '/api/public/v1';
const REDIS_PORT = Number(new URL(TEST_REDIS_URL).port || 6379);
/**
 * An outage is answered within 10 s, never a hang (docs/api-rules.md#hostile-input-and-outages).
 */
const ANSWER_WITHIN_MS = 10_000;
/** An outage, its healing and a stop with Redis away take several bounded waits in a row. */
const SLOW_TEST_MS = 60_000;
const UNAVAILABLE = {
  error: { code: 'service_unavailable', message: expect.any(String) },
};

function expectUnavailable(res: Response): void {
  expect([res.status, res.body]).toEqual([503, UNAVAILABLE]);
  expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
}

/** Retries `send` until it answers `status` (the service heals by itself, without a restart). */
async function eventually(send: () => Promise<Response>, status: number): Promise<Response> {
  let last: Response | undefined;
  for (let attempt = 0; attempt < 50; attempt++) {
    last = await send();
    if (last.status === status) return last;
    await sleep(200);
  }
  throw new Error(`still ${last?.status} ${JSON.stringify(last?.body)}`);
}

/**
 * PostgreSQL away (refusing or hanging) is a 503 with Retry-After within 10 s, and the service
 * heals by itself. Redis away: what needs it answers 503, the rest fails open (see the Redis
 * block).
 */
describe('Outages', () => {
  describe('PostgreSQL away', () => {
    let proxy: TcpProxy;
    let t: TestApp;
    let owner: SignedInUser;
    let project: TestProject;
    let key: string;

    beforeAll(async () => {
      proxy = await new TcpProxy('127.0.0.1', 5432).start();
      t = await startTestApp({}, { databasePort: proxy.port });
      ({ owner, project, key } = await new Factory(t).owner());
    });

    afterAll(async () => {
      // Drop every proxied connection first: a socket held open by the blackhole would keep the
      // app's pool (and the proxy) from closing.
      await proxy?.stop();
      await t?.close();
    });

    const requests: Array<[string, (t: TestApp) => Promise<Response>]> = [
      ['a session route', (t) => t.http.get('/api/projects').set('Authorization', owner.auth)],
      [
        'a public route',
        (t) =>
          t.http
            .get(`${PUBLIC}/projects/${project.id}/posts`)
            .set('Authorization', `Bearer ${key}`),
      ],
      [
        'a write',
        (t) =>
          t.http
            .post(`${PUBLIC}/projects/${project.id}/posts`)
            .set('Authorization', `Bearer ${key}`)
            .send({ text: 'during the outage' }),
      ],
      [
        'login',
        (t) =>
          t.http.post('/api/auth/login').send({ email: owner.email, password: 'x'.repeat(12) }),
      ],
    ];

    it.each(['refuse', 'blackhole'] as const)(
      'answers 503 with Retry-After while the database %ss connections, then heals',
      async (mode) => {
        await t.http.get('/api/projects').set('Authorization', owner.auth).expect(200);
        proxy.cut(mode);
        for (const [, send] of requests) expectUnavailable(await send(t));
        const ready = await t.http.get('/health/ready');
        expect(ready.status).toBe(503);
        proxy.restore();
        await eventually(() => requests[0][1](t), 200);
        await eventually(() => requests[1][1](t), 200);
        const { rows } = await t.db.query(
          "SELECT count(*)::int AS n FROM posts WHERE text = 'during the outage'",
        );
        expect(rows[0].n).toBe(0);
      },
    );
  });

  /**
   * Redis away, refusing, dropped (new connections hang) or hung (live connections go silent).
   * Only what cannot work without Redis answers 503: readiness and the queue dashboard's data.
   * Everything else fails open: rate limits are not enforced (no X-RateLimit-* headers), and a
   * post created or published is stored and answered, its job enqueued by the sweep later.
   */
  describe('Redis away', () => {
    let proxy: TcpProxy;
    let telegram: TelegramStandIn;
    let t: TestApp;

    beforeAll(async () => {
      telegram = await new TelegramStandIn().start();
    });
    afterAll(async () => {
      await telegram?.stop();
    });
    beforeEach(async () => {
      telegram.reset();
      proxy = await new TcpProxy('127.0.0.1', REDIS_PORT).start();
      t = await startTestApp({
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        TELEGRAM_API_BASE_URL: telegram.url,
        PUBLICATION_SWEEP_INTERVAL_MS: '500',
        TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '6000',
      });
    });
    afterEach(async () => {
      // The app closes while Redis may still be away: Bull's clients must give up in time.
      await t?.close();
      await proxy?.stop();
    }, SLOW_TEST_MS);

    it.each(['refuse', 'blackhole', 'stall'] as const)(
      'Redis %s: readiness and the dashboard 503, the API fails open, nothing is lost, then it heals',
      async (mode) => {
        const make = new Factory(t, telegram);
        const { owner, project, key } = await make.owner('Redis outage');
        const operator = await make.operator();
        const account = await make.telegramAccount(owner, project);
        const channel = await make.channel(owner, account.id);
        const posts = `${PUBLIC}/projects/${project.id}/posts`;
        const bearer = `Bearer ${key}`;
        const before = await t.http
          .post(posts)
          .set('Authorization', bearer)
          .send({ text: 'before the outage' })
          .expect(201);
        expect(before.headers['x-ratelimit-limit']).toBeDefined();
        await t.http.get('/health/ready').expect(200);

        proxy.cut(mode);
        const ready = await t.http.get('/health/ready').timeout(ANSWER_WITHIN_MS);
        expect(ready.status).toBe(503);
        expectUnavailable(
          await t.http
            .get('/admin/queues/api/queues')
            .set('Authorization', operator.auth)
            .timeout(ANSWER_WITHIN_MS),
        );
        const list = await t.http
          .get(posts)
          .set('Authorization', bearer)
          .timeout(ANSWER_WITHIN_MS)
          .expect(200);
        expect(list.headers['x-ratelimit-limit']).toBeUndefined();
        expect(list.body.items.map((p: { text: string }) => p.text)).toEqual(['before the outage']);
        const during = await t.http
          .post(posts)
          .set('Authorization', bearer)
          .timeout(ANSWER_WITHIN_MS)
          .send({ text: 'during the outage' })
          .expect(201);
        const published = await t.http
          .post(`${posts}/${during.body.id}/publish`)
          .set('Authorization', bearer)
          .timeout(ANSWER_WITHIN_MS)
          .send({ targets: [{ channel_ref: channel.id }] });
        expect([published.status, published.body.status]).toEqual([202, 'publishing']);
        expect(telegram.callsOf('sendMessage')).toHaveLength(0);

        proxy.restore();
        await eventually(() => t.http.get('/health/ready'), 200);
        await eventually(
          () => t.http.get('/admin/queues/api/queues').set('Authorization', operator.auth),
          200,
        );
        const healed = await eventually(() => t.http.get(posts).set('Authorization', bearer), 200);
        expect(healed.headers['x-ratelimit-limit']).toBeDefined();
        expect((await waitForPostStatus(t, during.body.id)).status).toBe('published');
        expect(telegram.callsOf('sendMessage').map((c) => c.params.text)).toEqual([
          'during the outage',
        ]);
        const { rows } = await t.db.query('SELECT text FROM posts ORDER BY id');
        expect(rows).toEqual([{ text: 'before the outage' }, { text: 'during the outage' }]);
      },
      SLOW_TEST_MS,
    );

    it.each(['refuse', 'blackhole', 'stall'] as const)(
      'stops by itself while Redis is %s, its queues closed within their bound',
      async (mode) => {
        await t.http.get('/health/ready').expect(200);
        proxy.cut(mode);
        await t.http.get('/health/ready').expect(503);
        // afterEach closes the app with Redis still away; a hang fails this test by its timeout.
      },
      SLOW_TEST_MS,
    );
  });
});

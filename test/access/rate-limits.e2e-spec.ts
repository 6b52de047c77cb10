import { Reflector } from '@nestjs/core';
import { createServer } from 'node:net';
import type { Response } from 'supertest';
import { AUTH_KIND, AuthKind } from '../../src/access/decorators';
import { RATE_LIMIT_CATEGORIES, RateLimitCategory } from '../../src/access/rate-limit-category';
import { Factory, SignedInUser, TestProject } from '../support/factories/factories';
import { fixture } from '../support/factories/media-helpers';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { startTestApp, TestApp } from '../support/test-app';
import { registeredRoutes } from '../support/routes';
import { sleep } from '../support/waits';

const PUBLIC = '/api/public/v1';
const RATE_LIMITED = { error: { code: 'rate_limit_exceeded', message: expect.any(String) } };
const UNAUTHORIZED = { error: { code: 'unauthorized', message: expect.any(String) } };

const nowSeconds = () => Date.now() / 1000;

/** The rate-limit headers of one answer, as numbers. */
function windowOf(res: Response): { limit: number; remaining: number; reset: number } {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(res.headers[name]).toMatch(/^\d+$/);
  }
  return {
    limit: Number(res.headers['x-ratelimit-limit']),
    remaining: Number(res.headers['x-ratelimit-remaining']),
    reset: Number(res.headers['x-ratelimit-reset']),
  };
}

/**
 * One category, one fresh window: `send` is accepted exactly `limit` times with the headers counting
 * down and one Reset in the future within the window, then refused with 429, its headers and body.
 * Answers the refusal.
 */
async function expectExactLimit(
  send: () => Promise<Response>,
  limit: number,
  acceptedStatus: number,
): Promise<Response> {
  const started = nowSeconds();
  let reset = 0;
  let firstAnswered = 0;
  for (let i = 0; i < limit; i++) {
    const res = await send();
    expect(res.status).toBe(acceptedStatus);
    const window = windowOf(res);
    expect(window).toMatchObject({ limit, remaining: limit - 1 - i });
    if (i === 0) {
      reset = window.reset;
      firstAnswered = nowSeconds();
    }
    expect(window.reset).toBe(reset);
  }
  expect(reset).toBeGreaterThan(started);
  // The window began between sending and answering the first request; Reset is rounded up.
  expect(reset).toBeLessThanOrEqual(Math.ceil(firstAnswered + 60));
  const refused = await send();
  expect(refused.status).toBe(429);
  expect(refused.body).toEqual(RATE_LIMITED);
  expect(windowOf(refused)).toEqual({ limit, remaining: 0, reset });
  const retryAfter = Number(refused.headers['retry-after']);
  expect(refused.headers['retry-after']).toMatch(/^\d+$/);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  return refused;
}

function expectNoRateLimitHeaders(res: Response): void {
  for (const name of Object.keys(res.headers))
    expect(name).not.toMatch(/^x-ratelimit|^retry-after/);
}

/**
 * The category of each public operation (docs/api-rules.md#rate-limits); every other public route
 * is `other`.
 */
const CATEGORY_OF_ROUTE: Record<string, string> = {
  'POST /api/public/v1/projects/:projectId/media': 'upload',
  'POST /api/public/v1/projects/:projectId/posts': 'create_post',
  'POST /api/public/v1/projects/:projectId/posts/:postId/publish': 'publish',
};

/** Every public API route, `METHOD /path`, with the category it declares (undefined: default). */
function publicRoutes(t: TestApp): { route: string; declared?: string }[] {
  const reflector = t.app.get(Reflector);
  return registeredRoutes(t.app)
    .filter(
      ({ targets }) => reflector.getAllAndOverride<AuthKind>(AUTH_KIND, targets) === 'api_key',
    )
    .map(({ route, targets }) => ({
      route,
      declared: reflector.getAllAndOverride(RateLimitCategory, targets),
    }));
}

/** A TCP port on which nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('Rate limits per key and category', () => {
  describe('one instance, one-minute windows', () => {
    let world: TelegramWorld;
    let t: TestApp;
    let make: Factory;
    let admin: SignedInUser;
    let project: TestProject;

    beforeAll(async () => {
      world = await startWithTelegram();
      ({ t, make } = world);
      ({ owner: admin, project } = await make.owner('Limited'));
    });

    afterAll(async () => {
      await world?.close();
    });

    const post = (path: string, key: string) =>
      t.http.post(`${PUBLIC}${path}`).set('Authorization', `Bearer ${key}`);

    const get = (path: string, key: string, ip = '198.51.100.1') =>
      t.http
        .get(`${PUBLIC}${path}`)
        .set('Authorization', `Bearer ${key}`)
        .set('X-Forwarded-For', ip);

    it('other: exactly 30 a window across projects, channels and usage, headers counting down, then 429', async () => {
      const key = await make.apiKey(admin);
      const paths = ['/projects', `/projects/${project.id}/channels`, '/usage'];
      let i = 0;
      const refused = await expectExactLimit(
        () => {
          const n = i++;
          // Alternating client addresses: the counter follows the key, never the IP.
          return get(paths[n % 3], key, `198.51.100.${(n % 5) + 1}`);
        },
        30,
        200,
      );
      const retryAfter = Number(refused.headers['retry-after']);
      expect(Math.abs(nowSeconds() + retryAfter - windowOf(refused).reset)).toBeLessThanOrEqual(2);

      // Refused requests do not reach the operation, and the window stays refused.
      await get('/usage', key).expect(429);
      await get(`/projects/${project.id}/channels`, key).expect(429);
    });

    it('upload: exactly 10 a window, the 11th refused and not stored; other categories still open', async () => {
      const key = await make.apiKey(admin);
      const mine = await make.project(admin, 'Uploads');
      await expectExactLimit(
        () =>
          t.http
            .post(`${PUBLIC}/projects/${mine.id}/media`)
            .set('Authorization', `Bearer ${key}`)
            .attach('files', fixture('sample.png'), 'sample.png'),
        10,
        201,
      );
      const { rows } = await t.db.query(
        'SELECT count(*)::int AS n FROM media_assets WHERE project_id = $1',
        [mine.id],
      );
      expect(rows[0].n).toBe(10);
      const other = await get('/usage', key).expect(200);
      expect(windowOf(other)).toMatchObject({ limit: 30, remaining: 29 });
    });

    it('create post: exactly 10 a window, the 11th refused and not created; other categories still open', async () => {
      const key = await make.apiKey(admin);
      const mine = await make.project(admin, 'Posts');
      let n = 0;
      await expectExactLimit(
        () => post(`/projects/${mine.id}/posts`, key).send({ text: `Post ${++n}` }),
        10,
        201,
      );
      const { rows } = await t.db.query(
        'SELECT count(*)::int AS n FROM posts WHERE project_id = $1',
        [mine.id],
      );
      expect(rows[0].n).toBe(10);
      expect(windowOf(await get('/usage', key).expect(200))).toMatchObject({ remaining: 29 });
      const upload = await post(`/projects/${mine.id}/media`, key)
        .attach('files', fixture('sample.png'), 'sample.png')
        .expect(201);
      expect(windowOf(upload)).toMatchObject({ limit: 10, remaining: 9 });
    });

    it('publish: exactly 10 a window, the 11th refused and its post left as it was', async () => {
      const mine = await make.project(admin, 'Publishing');
      const account = await make.telegramAccount(admin, mine);
      const channel = await make.channel(admin, account.id);
      // The posts come from two other keys of the same user: creating spends their budgets, not this one's.
      const writers = [await make.apiKey(admin), await make.apiKey(admin)];
      const ids: number[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await post(`/projects/${mine.id}/posts`, writers[i % 2])
          .send({ text: `To publish ${i}` })
          .expect(201);
        ids.push(res.body.id as number);
      }
      const key = await make.apiKey(admin);
      let n = 0;
      await expectExactLimit(
        () =>
          post(`/projects/${mine.id}/posts/${ids[n++]}/publish`, key).send({
            targets: [{ channel_ref: channel.id }],
          }),
        10,
        202,
      );
      const { rows } = await t.db.query('SELECT status FROM posts WHERE id = $1', [ids[10]]);
      expect(rows[0].status).toBe('draft');
      expect(windowOf(await get('/usage', key).expect(200))).toMatchObject({ remaining: 29 });
      const create = await post(`/projects/${mine.id}/posts`, key).send({ text: 'x' }).expect(201);
      expect(windowOf(create)).toMatchObject({ limit: 10, remaining: 9 });
    });

    it('errors after authentication carry the headers and spend the budget (403 scope, 404 project)', async () => {
      const key = await make.apiKey(admin, { scopes: ['usage:read'] });
      const scope = await get('/projects', key).expect(403);
      expect(scope.body.error.code).toBe('insufficient_scope');
      expect(windowOf(scope)).toMatchObject({ limit: 30, remaining: 29 });

      const full = await make.apiKey(admin);
      const missing = await get('/projects/999999/channels', full).expect(404);
      expect(missing.body.error.code).toBe('project_not_found');
      expect(windowOf(missing)).toMatchObject({ limit: 30, remaining: 29 });
      expect(windowOf(await get('/usage', full).expect(200)).remaining).toBe(28);
    });

    it('a request without a valid key is 401 without headers and spends no key’s budget', async () => {
      const key = await make.apiKey(admin);
      const wrongSecret = `${key.split('.')[0]}.${'x'.repeat(40)}`;
      for (const bad of [wrongSecret, 'hrld_live_nope', '']) {
        const res = await get('/projects', bad, '198.51.100.77').expect(401);
        expect(res.body).toEqual(UNAUTHORIZED);
        expectNoRateLimitHeaders(res);
      }
      expect(windowOf(await get('/projects', key).expect(200)).remaining).toBe(29);
    });

    it('two keys of the same user have separate budgets', async () => {
      const first = await make.apiKey(admin);
      const second = await make.apiKey(admin);
      for (let i = 0; i < 30; i++) await get('/usage', first).expect(200);
      await get('/usage', first).expect(429);

      const other = await get('/usage', second).expect(200);
      expect(windowOf(other)).toMatchObject({ limit: 30, remaining: 29 });
    });

    it('every public route counts in its category, and only in a configured one', () => {
      const routes = publicRoutes(t);
      expect(routes.length).toBeGreaterThanOrEqual(3);
      for (const { route, declared } of routes) {
        const category = declared ?? 'other';
        expect(RATE_LIMIT_CATEGORIES).toContain(category);
        expect(`${route} → ${category}`).toBe(`${route} → ${CATEGORY_OF_ROUTE[route] ?? 'other'}`);
      }
    });

    it('application API routes (sessions) are counted per user, apart from the key’s categories', async () => {
      const res = await t.http.get('/api/projects').set('Authorization', admin.auth).expect(200);
      expect(windowOf(res)).toMatchObject({ limit: t.config.rateLimits.appRequestsPerMinute });
    });
  });

  describe('two instances on one Redis and one database', () => {
    let first: TestApp;
    let second: TestApp;
    let make: Factory;
    let admin: SignedInUser;

    beforeAll(async () => {
      // An hour's window: a minute boundary in the middle of a burst would start a fresh budget.
      const env = {
        RATE_LIMIT_OTHER: '10',
        RATE_LIMIT_AUTH_FAILURES: '3',
        RATE_LIMIT_WINDOW_MS: '3600000',
      };
      first = await startTestApp(env);
      second = await startTestApp(env, { shareWith: first });
      make = new Factory(first);
      admin = await make.admin();
    });

    afterAll(async () => {
      await second?.close();
      await first?.close();
    });

    const get = (app: TestApp, key: string, ip = '192.0.2.1') =>
      app.http
        .get(`${PUBLIC}/projects`)
        .set('Authorization', `Bearer ${key}`)
        .set('X-Forwarded-For', ip);

    it('split 20 concurrent create-post requests: exactly 10 created in total, and 50 more change nothing', async () => {
      const key = await make.apiKey(admin);
      const project = await make.project(admin, 'Shared budget');
      const create = (app: TestApp, i: number) =>
        app.http
          .post(`${PUBLIC}/projects/${project.id}/posts`)
          .set('Authorization', `Bearer ${key}`)
          .send({ text: `Concurrent ${i}` });
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => create(i % 2 === 0 ? first : second, i)),
      );
      const accepted = answers.filter((res) => res.status === 201);
      expect(accepted).toHaveLength(10);
      expect(answers.filter((res) => res.status === 429)).toHaveLength(10);
      const remaining = accepted.map((res) => windowOf(res).remaining).sort((a, b) => a - b);
      expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // Both instances report the same window end: it is Redis's, not each process's clock.
      expect(new Set(answers.map((res) => windowOf(res).reset)).size).toBe(1);

      expect(new Set(accepted.map((res) => windowOf(res).limit))).toEqual(new Set([10]));

      const more = await Promise.all(
        Array.from({ length: 50 }, (_, i) => create(i % 2 === 0 ? first : second, i)),
      );
      expect(more.every((res) => res.status === 429)).toBe(true);
      const { rows } = await first.db.query(
        'SELECT count(*)::int AS n FROM posts WHERE project_id = $1',
        [project.id],
      );
      expect(rows[0].n).toBe(10);
    });

    it('failed authentications are limited per client IP across instances; a valid key from that address still passes', async () => {
      const key = await make.apiKey(admin);
      const bad = `${key.split('.')[0]}.${'y'.repeat(40)}`;
      const attacker = '203.0.113.9';
      await get(first, bad, attacker).expect(401);
      await get(second, bad, attacker).expect(401);
      await get(first, bad, attacker).expect(401);

      const refused = await get(second, bad, attacker).expect(429);
      expect(refused.body).toEqual(RATE_LIMITED);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // At most the window these instances use.
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(3600);
      // Clients behind one address (a NAT) never lock each other out: a valid key passes, on
      // either instance, and the blocked address's bad keys stay refused.
      const behindTheSameNat = await get(second, key, attacker).expect(200);
      expect(windowOf(behindTheSameNat).remaining).toBe(9);
      await get(first, key, attacker).expect(200);
      expect((await get(first, bad, attacker).expect(429)).body).toEqual(RATE_LIMITED);
      // Another address is unaffected.
      await get(first, bad, '203.0.113.10').expect(401);
      const ok = await get(first, key, '203.0.113.10').expect(200);
      expect(windowOf(ok).remaining).toBe(7);
    });
  });

  describe('a short window (RATE_LIMIT_WINDOW_MS=3000, this test only)', () => {
    let t: TestApp;
    let key: string;

    beforeAll(async () => {
      // Long enough for four requests on a busy CI machine, short enough to wait out.
      t = await startTestApp({ RATE_LIMIT_WINDOW_MS: '3000', RATE_LIMIT_OTHER: '3' });
      ({ key } = await new Factory(t).owner());
    });

    afterAll(async () => {
      await t?.close();
    });

    it('rolls over: after the reset, requests pass again with a fresh budget', async () => {
      const get = () => t.http.get(`${PUBLIC}/usage`).set('Authorization', `Bearer ${key}`);
      for (let i = 0; i < 3; i++) await get().expect(200);
      const refused = await get().expect(429);
      expect(['1', '2', '3']).toContain(refused.headers['retry-after']);
      const { reset } = windowOf(refused);

      await sleep(Math.max(0, reset * 1000 - Date.now()) + 50);

      const again = await get().expect(200);
      const window = windowOf(again);
      expect(window).toMatchObject({ limit: 3, remaining: 2 });
      expect(window.reset).toBeGreaterThanOrEqual(reset);
    });
  });

  describe('RATE_LIMIT_ENABLED=false (benchmarks only)', () => {
    let t: TestApp;
    let key: string;

    beforeAll(async () => {
      t = await startTestApp({
        RATE_LIMIT_ENABLED: 'false',
        RATE_LIMIT_OTHER: '1',
        RATE_LIMIT_AUTH_FAILURES: '1',
      });
      ({ key } = await new Factory(t).owner());
    });

    afterAll(async () => {
      await t?.close();
    });

    it('counts nothing: past the limit without headers, and bad keys stay 401', async () => {
      const get = (auth: string) =>
        t.http.get(`${PUBLIC}/projects`).set('Authorization', `Bearer ${auth}`);
      for (let i = 0; i < 3; i++) expectNoRateLimitHeaders(await get(key).expect(200));
      for (let i = 0; i < 3; i++) {
        expect((await get('hrld_live_nope').expect(401)).body).toEqual(UNAUTHORIZED);
      }
      await get(key).expect(200);
    });
  });

  describe('Redis unreachable: fail open (README, rate limits)', () => {
    let t: TestApp;
    let key: string;

    beforeAll(async () => {
      t = await startTestApp({
        REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
        RATE_LIMIT_OTHER: '1',
        RATE_LIMIT_AUTH_FAILURES: '1',
      });
      ({ key } = await new Factory(t).owner());
    });

    afterAll(async () => {
      await t?.close();
    });

    it('answers past the limit, without rate-limit headers, and keeps 401 for bad keys', async () => {
      for (let i = 0; i < 3; i++) {
        const res = await t.http
          .get(`${PUBLIC}/projects`)
          .set('Authorization', `Bearer ${key}`)
          .expect(200);
        expectNoRateLimitHeaders(res);
      }
      for (let i = 0; i < 3; i++) {
        const res = await t.http
          .get(`${PUBLIC}/projects`)
          .set('Authorization', 'Bearer hrld_live_nope')
          .expect(401);
        expect(res.body).toEqual(UNAUTHORIZED);
      }
    });
  });
});

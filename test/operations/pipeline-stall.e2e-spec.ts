import { Factory, TestChannel, TestProject } from '../support/factories/factories';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { publishNow, waitForPostStatus } from '../support/publication';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/waits';
import { freePort } from '../support/free-port';
import { heraldReady, spawnHerald, stopHerald } from '../support/herald-process';
import { TEST_APP_SECRET, TEST_REDIS_URL } from '../support/test-app';

const TOKEN = 'metrics-token-for-tests-0123456789';

/** A sample's value in Prometheus text, or null when the series is absent. */
function gauge(text: string, name: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : null;
}

/**
 * The pipeline says when it stalls (docs/api-rules.md#operations): workers write a heartbeat,
 * `/health/ready` on every role has a `publication` indicator, down when a due post has waited
 * more than 60 s for a worker while none is alive, and `/metrics` has both figures.
 */
describe('A pipeline that says when it stalls', () => {
  let world: TelegramWorld;
  let t: TestApp;
  let make: Factory;
  let project: TestProject;
  let key: string;
  let channel: TestChannel;

  beforeAll(async () => {
    // An API-only deployment: nothing takes the jobs until a worker starts.
    world = await startWithTelegram({ APP_ROLE: 'api', METRICS_TOKEN: TOKEN });
    ({ t, make } = world);
    ({
      project,
      key,
      channels: [channel],
    } = await make.ownerWithChannels('Stall'));
  });

  afterAll(() => world?.close());

  const scrape = async (app = t) =>
    (await app.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text;

  it('with no worker alive: up while the oldest due post is young, down naming it past 60 s; the gauges say why', async () => {
    const postId = await publishNow(t, project.id, key, channel.id, 'Waiting');

    const young = await t.http.get('/health/ready').expect(200);
    expect(young.body.info.publication).toEqual({
      status: 'up',
      live_workers: 0,
      oldest_unclaimed_post_id: postId,
      oldest_unclaimed_seconds: expect.any(Number),
    });
    expect(young.body.info.publication.oldest_unclaimed_seconds).toBeLessThan(60);

    await t.db.query(`UPDATE posts SET updated_at = now() - interval '61 seconds' WHERE id = $1`, [
      postId,
    ]);
    const stalled = await t.http.get('/health/ready').expect(503);
    expect(stalled.headers['retry-after']).toBeDefined();
    expect(stalled.body.error).toEqual({
      code: 'service_unavailable',
      message: expect.stringMatching(
        new RegExp(
          `publication: Post ${postId} has waited 6\\d s for a worker, and no worker is alive`,
        ),
      ),
    });
    const text = await scrape();
    expect(gauge(text, 'herald_publication_live_workers')).toBe(0);
    expect(gauge(text, 'herald_publication_oldest_unclaimed_seconds')).toBeGreaterThanOrEqual(61);
  });

  it('a worker that starts says it is alive, takes the post, and says it has gone when it stops', async () => {
    const worker = await startTestApp(
      { APP_ROLE: 'worker', TELEGRAM_API_BASE_URL: world.telegram.url, METRICS_TOKEN: TOKEN },
      { shareWith: t },
    );
    try {
      await waitFor(
        async () => (await t.http.get('/health/ready')).body.info?.publication?.live_workers === 1,
        10_000,
      );
      const { rows } = await t.db.query<{ id: number }>(
        `SELECT id FROM posts WHERE project_id = $1`,
        [project.id],
      );
      for (const { id } of rows) expect((await waitForPostStatus(t, id)).status).toBe('published');
      const ready = await t.http.get('/health/ready').expect(200);
      expect(ready.body.info.publication).toMatchObject({
        status: 'up',
        live_workers: 1,
        oldest_unclaimed_post_id: null,
      });
      expect(gauge(await scrape(), 'herald_publication_live_workers')).toBe(1);
      expect(gauge(await scrape(), 'herald_publication_oldest_unclaimed_seconds')).toBe(0);
    } finally {
      await worker.close();
    }
    const after = await t.http.get('/health/ready').expect(200);
    expect(after.body.info.publication.live_workers).toBe(0);
  });

  it('a post published with POST publish counts as unclaimed until a worker takes it', async () => {
    const draft = await t.http
      .post(`/api/public/v1/projects/${project.id}/posts`)
      .set('Authorization', `Bearer ${key}`)
      .send({ text: 'Draft', targets: [{ channel_ref: channel.id }] })
      .expect(201);
    await t.http
      .post(`/api/public/v1/projects/${project.id}/posts/${draft.body.id}/publish`)
      .set('Authorization', `Bearer ${key}`)
      .expect(202);
    const ready = await t.http.get('/health/ready').expect(200);
    expect(ready.body.info.publication.oldest_unclaimed_post_id).toBe(draft.body.id);
  });

  it('a worker process killed outright is counted gone once its heartbeat is too old, and a waiting post is then a stall', async () => {
    const worker = spawnHerald('worker', await freePort(), {
      DATABASE_URL: t.config.databaseUrl,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: t.config.redisKeyPrefix,
      APP_SECRET: TEST_APP_SECRET,
      TELEGRAM_API_BASE_URL: world.telegram.url,
      METRICS_TOKEN: TOKEN,
      LOG_LEVEL: 'warn',
    });
    try {
      await heraldReady(worker, 120_000, TOKEN);
      const live = async () =>
        (await t.http.get('/health/ready')).body.info?.publication?.live_workers as number;
      await waitFor(async () => (await live()) === 1, 15_000);
      worker.child.kill('SIGKILL');
      await worker.exit;
      // No goodbye: the heartbeat ages out (15 s), never before its last beat was 10 s old.
      expect(await live()).toBe(1);
      await waitFor(async () => (await live()) === 0, 30_000);
      const postId = await publishNow(t, project.id, key, channel.id, 'Nobody takes it');
      await t.db.query(
        `UPDATE posts SET updated_at = now() - interval '61 seconds' WHERE id = $1`,
        [postId],
      );
      const stalled = await t.http.get('/health/ready').expect(503);
      expect(stalled.body.error.code).toBe('service_unavailable');
    } finally {
      await stopHerald(worker, 'SIGKILL');
    }
  }, 180_000);
});

import { LOST_ATTEMPT_ERROR } from '../../src/domains/webhooks/webhooks.repository';
import { Factory, TestProject } from '../support/factories/factories';
import { freePort } from '../support/free-port';
import { HeraldProcess, spawnHerald, stopHerald } from '../support/herald-process';
import { startTestApp, TEST_APP_SECRET, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { waitFor } from '../support/waits';

/**
 * Webhook deliveries when things go wrong on the delivering side: a receiver that hangs, a worker
 * killed mid-attempt.
 */

const FAST = {
  MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.1/32',
  PUBLICATION_ENQUEUE_TIMEOUT_MS: '300',
  WEBHOOK_SWEEP_INTERVAL_MS: '300',
  RATE_LIMIT_OTHER: '100000',
};

/** Long enough that no retry comes while a test runs. */
const NO_RETRY_SOON = '600000';

describe('Webhook deliveries under faults', () => {
  let receiver: WebhookReceiver;
  let seq = 0;

  beforeEach(async () => {
    receiver = await new WebhookReceiver().start();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  async function endpoint(t: TestApp, project: TestProject, key: string) {
    const path = `/hook-${++seq}`;
    const res = await t.http
      .post(`/api/public/v1/projects/${project.id}/webhooks`)
      .set('Authorization', `Bearer ${key}`)
      .send({ url: receiver.url(path), events: ['post.published'] })
      .expect(201);
    receiver.expect(path, res.body.secret as string);
    return { id: res.body.id as number, path };
  }

  const sendTest = (t: TestApp, project: TestProject, key: string, webhookId: number) =>
    t.http
      .post(`/api/public/v1/projects/${project.id}/webhooks/${webhookId}/test`)
      .set('Authorization', `Bearer ${key}`)
      .expect(202);

  it('an endpoint that hangs holds only its share of the worker: another endpoint’s deliveries all go out meanwhile', async () => {
    const t = await startTestApp({
      ...FAST,
      WEBHOOK_CONCURRENCY: '4',
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      WEBHOOK_TIMEOUT_MS: '60000',
      WEBHOOK_RETRY_DELAYS_MS: NO_RETRY_SOON,
    });
    try {
      const { project, key } = await new Factory(t).owner();
      const hanging = await endpoint(t, project, key);
      const healthy = await endpoint(t, project, key);
      receiver.script(hanging.path, ...Array.from({ length: 6 }, () => ({ delayMs: 120_000 })));
      const hangingHits = () => receiver.hits.filter((path) => path === hanging.path).length;

      for (let i = 0; i < 6; i++) await sendTest(t, project, key, hanging.id);
      await waitFor(() => hangingHits() >= 2);
      for (let i = 0; i < 5; i++) await sendTest(t, project, key, healthy.id);

      // Every delivery of the healthy endpoint arrives while the hanging one still holds its two
      // deliveries (none of which has answered) and the other four wait for them.
      await waitFor(() => receiver.of(healthy.path).length === 5, 15_000);
      expect(hangingHits()).toBe(2);
      expect(receiver.rejected).toEqual([]);
    } finally {
      await receiver.stop();
      await t.close();
    }
  }, 60_000);

  it('a worker killed mid-attempt: another makes the attempt again within seconds, and the log shows the lost one', async () => {
    // An API process (which neither dispatches nor delivers) and worker processes of their own.
    const t = await startTestApp({ ...FAST, APP_ROLE: 'api' });
    const workers: HeraldProcess[] = [];
    const startWorker = async () => {
      const worker = spawnHerald('worker', await freePort(), {
        ...FAST,
        DATABASE_URL: t.config.databaseUrl,
        REDIS_URL: t.config.redisUrl,
        REDIS_KEY_PREFIX: t.config.redisKeyPrefix,
        APP_SECRET: TEST_APP_SECRET,
        LOG_LEVEL: 'warn',
        WEBHOOK_LOCK_MS: '1000',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_RETRY_DELAYS_MS: NO_RETRY_SOON,
      });
      workers.push(worker);
      return worker;
    };
    try {
      const { project, key } = await new Factory(t).owner();
      const hook = await endpoint(t, project, key);
      receiver.script(hook.path, { delayMs: 120_000 }); // the first attempt never sees its answer
      const first = await startWorker();
      const event = await sendTest(t, project, key, hook.id);
      await waitFor(() => receiver.hits.length === 1, 60_000);

      await stopHerald(first, 'SIGKILL');
      await startWorker();

      const readLog = async () =>
        (
          await t.http
            .get(`/api/public/v1/projects/${project.id}/webhooks/${hook.id}/deliveries`)
            .set('Authorization', `Bearer ${key}`)
            .expect(200)
        ).body.items as Record<string, unknown>[];
      await waitFor(async () => (await readLog()).length === 2, 60_000);
      expect(
        (await readLog()).map((item) => [
          item.event_id,
          item.attempt,
          item.status_code,
          item.error,
        ]),
      ).toEqual([
        [event.body.event_id, 2, 204, null],
        [event.body.event_id, 1, null, LOST_ATTEMPT_ERROR],
      ]);
      expect(receiver.of(hook.path).map((d) => d.id)).toEqual([
        event.body.event_id,
        event.body.event_id,
      ]);
    } finally {
      for (const worker of workers) await stopHerald(worker, 'SIGKILL');
      await receiver.stop();
      await t.close();
    }
  }, 120_000);
});

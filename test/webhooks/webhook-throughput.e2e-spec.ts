import { WebhookProducer } from '../../src/domains/webhooks/webhook.queue';
import { WebhooksRepository } from '../../src/domains/webhooks/webhooks.repository';
import { Factory, TestProject } from '../support/factories/factories';
import { startTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { waitFor } from '../support/waits';

/**
 * Deliveries at publication's pace: the outbox read in batches, several deliveries in flight to
 * one endpoint over kept-alive connections, and a slow endpoint never in a fast one's way. Events
 * are written while only an API process runs, so a worker started afterwards finds them all.
 */

const ENV = {
  MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.1/32',
  WEBHOOK_SWEEP_INTERVAL_MS: '300',
  RATE_LIMIT_OTHER: '100000',
  WEBHOOK_RETRY_DELAYS_MS: '600000',
};

describe('Webhook delivery throughput', () => {
  let receiver: WebhookReceiver;
  let api: TestApp;
  let worker: TestApp | undefined;
  let project: TestProject;
  let key: string;
  let seq = 0;

  beforeEach(async () => {
    receiver = await new WebhookReceiver().start();
    api = await startTestApp({ ...ENV, APP_ROLE: 'api' });
    ({ project, key } = await new Factory(api).owner());
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await receiver.stop();
    await worker?.close();
    worker = undefined;
    await api.close();
  });

  async function endpoint() {
    const path = `/hook-${++seq}`;
    const res = await api.http
      .post(`/api/public/v1/projects/${project.id}/webhooks`)
      .set('Authorization', `Bearer ${key}`)
      .send({ url: receiver.url(path), events: ['post.published'] })
      .expect(201);
    receiver.expect(path, res.body.secret as string);
    return { id: res.body.id as number, path };
  }

  async function sendTests(webhookId: number, count: number): Promise<void> {
    for (let i = 0; i < count; i++)
      await api.http
        .post(`/api/public/v1/projects/${project.id}/webhooks/${webhookId}/test`)
        .set('Authorization', `Bearer ${key}`)
        .expect(202);
  }

  const startWorker = async (env: Record<string, string>) => {
    worker = await startTestApp({ ...ENV, ...env, APP_ROLE: 'worker' }, { shareWith: api });
  };

  it('picks up many pending sends in a few round trips, not one each', async () => {
    const hook = await endpoint();
    await sendTests(hook.id, 60);
    const reads = jest.spyOn(WebhooksRepository.prototype, 'sendsToEnqueue');
    const marks = jest.spyOn(WebhooksRepository.prototype, 'markQueued');
    const adds = jest.spyOn(WebhookProducer.prototype, 'enqueueMany');

    await startWorker({});
    await waitFor(() => receiver.of(hook.path).length === 60, 30_000);

    const nonEmpty = (calls: unknown[][]) => calls.filter(([sends]) => (sends as []).length > 0);
    const queued = nonEmpty(marks.mock.calls).flatMap(([sends]) => sends as { id: number }[]);
    expect(new Set(queued.map((send) => send.id)).size).toBe(60);
    expect(nonEmpty(marks.mock.calls).length).toBeLessThanOrEqual(2);
    expect(nonEmpty(adds.mock.calls).length).toBeLessThanOrEqual(2);
    expect(reads.mock.calls.length).toBeLessThanOrEqual(4);
    expect(receiver.rejected).toEqual([]);
  }, 60_000);

  it('delivers to an endpoint that is not fast several at once, never more than WEBHOOK_ENDPOINT_CONCURRENCY, over kept-alive connections', async () => {
    const hook = await endpoint();
    // Answers in 400 ms: slower than a tenth of the time limit, so its share never grows.
    receiver.script(hook.path, ...Array.from({ length: 20 }, () => ({ delayMs: 400 })));
    await sendTests(hook.id, 20);

    await startWorker({
      WEBHOOK_CONCURRENCY: '10',
      WEBHOOK_ENDPOINT_CONCURRENCY: '4',
      WEBHOOK_TIMEOUT_MS: '3000',
    });
    await waitFor(() => receiver.answered(hook.path) === 20, 30_000);

    expect(new Set(receiver.of(hook.path).map((d) => d.id)).size).toBe(20);
    expect(receiver.mostInFlight(hook.path)).toBe(4);
    expect(receiver.connections).toBeLessThanOrEqual(4);
    expect(receiver.rejected).toEqual([]);
  }, 60_000);

  it('lets an endpoint that answers fast have more at once, up to ten times its share', async () => {
    const hook = await endpoint();
    receiver.script(hook.path, ...Array.from({ length: 120 }, () => ({ delayMs: 50 })));
    await sendTests(hook.id, 120);

    await startWorker({ WEBHOOK_CONCURRENCY: '10', WEBHOOK_ENDPOINT_CONCURRENCY: '2' });
    await waitFor(() => receiver.answered(hook.path) === 120, 30_000);

    expect(new Set(receiver.of(hook.path).map((d) => d.id)).size).toBe(120);
    expect(receiver.mostInFlight(hook.path)).toBeGreaterThan(2);
    expect(receiver.mostInFlight(hook.path)).toBeLessThanOrEqual(20);
    expect(receiver.connections).toBeLessThanOrEqual(receiver.mostInFlight(hook.path));
    expect(receiver.rejected).toEqual([]);
  }, 60_000);

  it('a slow endpoint does not delay a fast one: the fast one gets every event before the slow one has answered any', async () => {
    const slow = await endpoint();
    const fast = await endpoint();
    receiver.script(slow.path, ...Array.from({ length: 8 }, () => ({ delayMs: 5_000 })));
    // The slow endpoint's sends come first in the outbox and in the queue.
    await sendTests(slow.id, 8);
    await sendTests(fast.id, 8);

    await startWorker({ WEBHOOK_CONCURRENCY: '4', WEBHOOK_ENDPOINT_CONCURRENCY: '2' });
    await waitFor(() => receiver.of(fast.path).length === 8, 30_000);

    expect(receiver.answered(slow.path)).toBe(0);
    expect(receiver.mostInFlight(slow.path)).toBe(2);
    await waitFor(() => receiver.answered(slow.path) === 8, 60_000);
    expect(receiver.rejected).toEqual([]);
  }, 90_000);
});

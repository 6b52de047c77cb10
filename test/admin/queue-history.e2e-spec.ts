import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { publishNow, waitForPostStatus } from '../support/publication';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { WebhookReceiver } from '../support/webhook-receiver';
import { waitFor } from '../support/waits';

/**
 * The queue dashboard shows what the queues hold: the recent finished jobs stay in Redis after
 * they end, at most QUEUE_HISTORY_JOBS of them per queue, instead of vanishing at once.
 */
describe('Finished jobs stay for the queue dashboard, bounded', () => {
  let world: TelegramWorld;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    world = await startWithTelegram({
      QUEUE_HISTORY_JOBS: '2',
      // A delivery due now goes without a queue job; its retry is one.
      WEBHOOK_RETRY_DELAYS_MS: '50',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
      TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '100000',
    });
  });

  afterAll(async () => {
    await world?.close();
    await receiver?.stop();
  });

  const queue = (name: string) => world.t.app.get<Queue>(getQueueToken(name));
  const finished = async (name: string) =>
    // A job trimmed between Bull's listing and its read comes back as null.
    (await queue(name).getJobs(['completed']))
      .filter((job) => job !== null)
      .map((job) => String(job.id))
      .sort();

  it('keeps the latest finished publication and webhook jobs, the older ones trimmed', async () => {
    const { t, make } = world;
    const {
      project,
      key,
      channels: [channel],
    } = await make.ownerWithChannels('History');
    const hook = await t.http
      .post(`/api/public/v1/projects/${project.id}/webhooks`)
      .set('Authorization', `Bearer ${key}`)
      .send({ url: receiver.url('/history'), events: ['post.published'] })
      .expect(201);
    receiver.expect('/history', hook.body.secret);

    const ids: number[] = [];
    for (const text of ['One', 'Two', 'Three']) {
      // The event's first attempt fails: its retry is a job of the webhooks queue.
      receiver.script('/history', { status: 503 });
      const id = await publishNow(t, project.id, key, channel.id, text);
      ids.push(id);
      expect((await waitForPostStatus(t, id)).status).toBe('published');
      await waitFor(() => receiver.deliveries.length === 2 * ids.length);
    }
    await waitFor(async () => (await finished('webhooks')).length === 2);
    expect(await finished('publication')).toEqual(
      ids
        .slice(1)
        .map((id) => `post:${id}:1`)
        .sort(),
    );
    const job = (await queue('publication').getJob(`post:${ids[2]}:1`))!;
    expect({ state: await job.getState(), data: job.data }).toEqual({
      state: 'completed',
      data: { postId: ids[2], attempt: 1 },
    });
    expect(receiver.rejected).toEqual([]);
  });
});

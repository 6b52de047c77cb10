import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { Factory } from '../support/factories/factories';
import { waitForPostStatus } from '../support/publication';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/waits';

const HORIZON_MS = 2_000;

/**
 * Redis holds the near future only: a post scheduled beyond the schedule horizon is a row without
 * a queue job until the sweep finds it due within the horizon, and still fires at its time.
 */
describe('Scheduled posts and the schedule horizon', () => {
  let telegram: TelegramStandIn;
  let t: TestApp;
  let queue: Queue;
  let schedule: (text: string, inMs: number) => Promise<number>;

  beforeAll(async () => {
    telegram = await new TelegramStandIn().start();
    t = await startTestApp({
      TELEGRAM_API_BASE_URL: telegram.url,
      PUBLICATION_SWEEP_INTERVAL_MS: '300',
      PUBLICATION_SCHEDULE_HORIZON_MS: String(HORIZON_MS),
    });
    queue = t.app.get<Queue>(getQueueToken('publication'));
    const { project, key, channels } = await new Factory(t, telegram).ownerWithChannels('Horizon');
    schedule = async (text, inMs) => {
      const res = await t.http
        .post(`/api/public/v1/projects/${project.id}/posts`)
        .set('Authorization', `Bearer ${key}`)
        .send({
          text,
          targets: [{ channel_ref: channels[0].id }],
          scheduled_at: new Date(Date.now() + inMs).toISOString(),
        })
        .expect(201);
      return res.body.id as number;
    };
  });

  afterAll(async () => {
    await t?.close();
    await telegram?.stop();
  });

  const jobOf = (postId: number) => queue.getJob(`post:${postId}:1`);

  it('a post due beyond the horizon gets its job from the sweep before its time, and fires once', async () => {
    const dueInMs = HORIZON_MS + 3_000;
    const createdAt = Date.now();
    const postId = await schedule('Beyond the horizon', dueInMs);
    expect(await jobOf(postId)).toBeNull();
    await waitFor(async () => (await jobOf(postId)) !== null, dueInMs);
    const jobAt = Date.now();
    expect(jobAt).toBeLessThan(createdAt + dueInMs - 500);
    expect(jobAt).toBeGreaterThanOrEqual(createdAt + dueInMs - HORIZON_MS - 1_000);
    expect((await waitForPostStatus(t, postId)).status).toBe('published');
    const { rows } = await t.db.query(
      'SELECT published_at >= scheduled_at AS on_time FROM posts WHERE id = $1',
      [postId],
    );
    expect(rows[0].on_time).toBe(true);
    expect(
      telegram.callsOf('sendMessage').filter((c) => c.params.text === 'Beyond the horizon'),
    ).toHaveLength(1);
  });

  it('a post due within the horizon has its delayed job at once', async () => {
    const postId = await schedule('Within the horizon', HORIZON_MS / 2);
    expect(await (await jobOf(postId))?.isDelayed()).toBe(true);
    expect((await waitForPostStatus(t, postId)).status).toBe('published');
  });
});

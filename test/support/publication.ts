import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { TestApp } from './test-app';
import { sleep, waitFor } from './waits';

export interface PostState {
  status: string;
  published_at: string | null;
}

/** Polls the post's row until its status is one of `statuses` (the pipeline runs asynchronously). */
export async function waitForPostStatus(
  t: TestApp,
  postId: number,
  statuses: string[] = ['published', 'failed'],
  timeoutMs = 15_000,
): Promise<PostState> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await t.db.query<PostState>(
      'SELECT status, published_at FROM posts WHERE id = $1',
      [postId],
    );
    if (rows[0] && statuses.includes(rows[0].status)) return rows[0];
    if (Date.now() > until)
      throw new Error(
        `Post ${postId} is ${rows[0]?.status ?? 'missing'}, not ${statuses.join('/')}`,
      );
    await sleep(25);
  }
}

export interface TargetState {
  chat_id: string;
  status: string;
  error_code: string | null;
  error_message: string | null;
  message_ids: number[];
  published_at: string | null;
}

export async function targetsOf(t: TestApp, postId: number): Promise<TargetState[]> {
  const { rows } = await t.db.query<TargetState>(
    `SELECT chat_id, status, error_code, error_message, message_ids, published_at
       FROM post_targets WHERE post_id = $1 ORDER BY position, id`,
    [postId],
  );
  return rows;
}

/** Creates a post to `channelRef` with publish_now through the public API; returns its id. */
export async function publishNow(
  t: TestApp,
  projectId: number,
  key: string,
  channelRef: string,
  text: string,
): Promise<number> {
  const res = await t.http
    .post(`/api/public/v1/projects/${projectId}/posts`)
    .set('Authorization', `Bearer ${key}`)
    .send({ text, targets: [{ channel_ref: channelRef }], publish_now: true })
    .expect(201);
  return res.body.id;
}

/**
 * Runs `work` while this app's publication worker takes no job, so that the calls in it are the
 * only runs; `resume` lets the queued jobs run from then on. The worker takes jobs again afterwards
 * in any case.
 */
export async function withWorkerPaused(
  t: TestApp,
  work: (resume: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const queue = t.app.get<Queue>(getQueueToken('publication'));
  await queue.pause(true);
  try {
    await work(() => queue.resume(true));
  } finally {
    await queue.resume(true);
  }
}

/**
 * The post waits for a platform's limit (pending, no failure counted) in a job delayed at least
 * `atLeastMs`; the wait is then declared over, for the job and for the account's held sends, and
 * the job runs now.
 */
export async function runWaitingNow(t: TestApp, postId: number, atLeastMs: number): Promise<void> {
  const queue = t.app.get<Queue>(getQueueToken('publication'));
  let delayed: Awaited<ReturnType<Queue['getDelayed']>> = [];
  await waitFor(async () => {
    delayed = (await queue.getDelayed()).filter((job) => job.data.postId === postId);
    return delayed.length === 1;
  });
  const [job] = delayed;
  // A delayed job's score in Bull's sorted set is its due time in ms, times 4096.
  const score = Number(await queue.client.zscore(queue.toKey('delayed'), String(job.id)));
  expect(Math.floor(score / 4096) - Date.now()).toBeGreaterThan(atLeastMs - 5_000);
  const [target] = await targetsOf(t, postId);
  expect(target).toMatchObject({ status: 'pending' });
  const { rows } = await t.db.query('SELECT failures FROM post_targets WHERE post_id = $1', [
    postId,
  ]);
  expect(rows[0].failures).toBe(0);
  // The platform's own report of a spent budget is over too.
  const held = [
    ...(await queue.client.keys(`${t.config.redisKeyPrefix}:pacing:bot:*`)),
    ...(await queue.client.keys(`${t.config.redisKeyPrefix}:pacing:reported:*`)),
  ];
  if (held.length > 0) await queue.client.del(...held);
  await job.promote();
}

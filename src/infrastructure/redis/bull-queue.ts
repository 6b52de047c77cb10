import type { Logger } from '@nestjs/common';
import type { Job, JobOptions, Queue } from 'bull';
import type { OpsConfig } from '../config/config';
import { withinTime } from './time-limit';

/**
 * What every Bull queue of Herald needs around it (the publication and webhook queues alike):
 * Redis calls bounded in time, Redis errors logged without flooding, the live-job check of the
 * recovery sweeps, and a worker that does not end the process when its connection is not named.
 */

/** Redis did not answer a queue call in time (PUBLICATION_ENQUEUE_TIMEOUT_MS). */
export class QueueUnavailable extends Error {}

/** How often a stopping queue checks that Redis still answers while its jobs in hand finish. */
const CLOSE_CHECK_INTERVAL_MS = 1_000;

/** Redis errors repeat while it is away; one line per interval is enough. */
const ERROR_LOG_INTERVAL_MS = 30_000;

const LIVE_STATES = new Set(['waiting', 'active', 'delayed', 'paused']);

/**
 * What a job leaves behind once it ends: the recent finished and failed jobs stay, bounded in
 * number and age (Bull trims them as further jobs end), for the queue dashboard. A kept job never
 * blocks its id: the recovery sweeps remove a finished job before adding it again (hasLiveJob).
 */
export function finishedJobRetention(
  history: OpsConfig['queueHistory'],
): Pick<JobOptions, 'removeOnComplete' | 'removeOnFail'> {
  const keep = history.jobs === 0 ? true : { count: history.jobs, age: history.ageSeconds };
  return { removeOnComplete: keep, removeOnFail: keep };
}

/** Bull's client queues commands while Redis is away, so a call would hang: bound it. */
export function boundedQueueCall<T>(work: Promise<T>, limitMs: number): Promise<T> {
  return withinTime(
    work,
    limitMs,
    () => new QueueUnavailable(`Redis did not answer in ${limitMs} ms`),
  );
}

/** Bull re-emits its Redis clients' errors; unheard, an 'error' event would end the process. */
export function logQueueErrors(queue: Queue, logger: Logger, label: string): void {
  let lastLog = 0;
  queue.on('error', (error: Error) => {
    if (Date.now() - lastLog < ERROR_LOG_INTERVAL_MS) return;
    lastLog = Date.now();
    logger.warn(`${label}: ${error.message}`);
  });
}

/**
 * Whether the job is waiting, delayed or running. A finished job still in Redis is removed, so
 * that the sweep can add it again. Every call goes through `bounded`.
 */
export async function hasLiveJob(
  queue: Queue,
  jobId: string,
  bounded: <T>(work: Promise<T>) => Promise<T>,
): Promise<boolean> {
  const job = await bounded(queue.getJob(jobId));
  if (!job) return false;
  const state = await bounded(job.getState());
  if (LIVE_STATES.has(state)) return true;
  await bounded(job.remove());
  return false;
}

/**
 * Starts the queue's worker. Bull's processing loop ends when the queue closes, with the close's
 * error when Redis was away: that end was asked for (stopping) and logs nothing; any other end is a
 * worker that no longer consumes. `label` names the queue in the log ("Webhook").
 */
export function startWorker<T>(
  queue: Queue<T>,
  concurrency: number,
  handler: (job: Job<T>) => Promise<unknown>,
  logger: Logger,
  label: string,
): void {
  guardWorkerNaming(queue, logger);
  queue.process(concurrency, handler).catch((error?: Error) => {
    if (isClosing(queue)) return;
    // Bull rejects with the connection's last error, which may be none at all.
    logger.error(`${label} worker stopped: ${error?.message ?? 'Redis connection ended'}`);
  });
}

/** Bull sets `closing` once close() began, and never clears it. */
function isClosing(queue: Queue): boolean {
  return (queue as Queue & { closing?: Promise<void> }).closing !== undefined;
}

/**
 * Bull's process() names the worker's blocking connection (CLIENT SETNAME) and drops the promise;
 * stopping before Redis answers (a shutdown right after start, Redis away) would leave an
 * unhandled rejection, which ends a Node process. Its outcome only matters for the log.
 */
function guardWorkerNaming(queue: Queue, logger: Logger): void {
  const named = queue as Queue & { setWorkerName?: () => Promise<void> };
  const setWorkerName = named.setWorkerName?.bind(queue);
  if (!setWorkerName) return;
  named.setWorkerName = () =>
    setWorkerName().catch((error?: Error) =>
      logger.debug(`Worker connection not named: ${error?.message ?? 'connection ended'}`),
    );
}

/** Whether the queue's Redis answers a PING within `limitMs` (a hung Redis keeps its connection). */
export async function queueRedisAnswers(queue: Queue, limitMs: number): Promise<boolean> {
  if (queue.client.status !== 'ready') return false;
  try {
    await boundedQueueCall(queue.client.ping(), limitMs);
    return true;
  } catch {
    return false;
  }
}

/**
 * Closes the queue at shutdown: the jobs in hand finish as long as Redis answers. Bull's close()
 * alone would wait forever for a Redis that refuses or does not answer (it reconnects its blocking
 * connection and waits for it, and queued commands never settle); once Redis is found away, the
 * queue's connections are dropped, which fails what waits on them and lets close() finish.
 */
export async function closeQueue(queue: Queue, logger: Logger, limitMs: number): Promise<void> {
  for (const client of queue.clients) expectFailures(client);
  let closed = false;
  const closing = queue.close().finally(() => (closed = true));
  let warned = false;
  for (;;) {
    await Promise.race([closing, sleep(CLOSE_CHECK_INTERVAL_MS)]);
    if (closed) return closing;
    if (await redisAnswersApart(queue, limitMs)) continue;
    if (!warned) logger.warn(`Queue ${queue.name}: Redis does not answer; closing without it`);
    warned = true;
    for (const client of queue.clients) endClient(client);
  }
}

/**
 * Whether Redis answers a PING on a connection of its own. Bull's own connections say nothing
 * while it closes them, the last step of a clean close (a client it quits reads as closing, then
 * ended), and taking that for Redis away ended the connections of a clean stop by force.
 */
async function redisAnswersApart(queue: Queue, limitMs: number): Promise<boolean> {
  const probe = queue.client.duplicate({
    lazyConnect: true,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: limitMs,
  });
  probe.on('error', () => undefined);
  try {
    await boundedQueueCall(probe.ping(), limitMs);
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** Calls whose promise Bull or ioredis drops while a client closes (see expectFailures). */
const UNAWAITED_CALLS = ['connect', 'subscribe', 'psubscribe'] as const;
const expecting = new WeakSet<object>();

/**
 * Failures that closing produces and nobody awaits must not be unhandled rejections, which end a
 * Node process: Bull's close() reconnects its blocking client and may drop that promise, and
 * ioredis re-subscribes after a reconnection without awaiting it. Whoever awaits a command or a
 * connection still sees its failure.
 */
function expectFailures(client: Queue['client']): void {
  const internals = client as unknown as EndableClient;
  for (const { command } of [
    ...internals.commandQueue.toArray(),
    ...internals.offlineQueue.toArray(),
  ])
    command.promise.catch(() => undefined);
  if (expecting.has(client)) return;
  expecting.add(client);
  const methods = client as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of UNAWAITED_CALLS) {
    const call = methods[name].bind(client);
    methods[name] = (...args: unknown[]) => {
      const result = call(...args);
      if (result instanceof Promise) result.catch(() => undefined);
      return result;
    };
  }
}

/** ioredis internals that end a client whatever its state (see endClient). */
interface EndableClient {
  flushQueue(error: Error): void;
  setStatus(status: 'end'): void;
  commandQueue: { toArray(): { command: { promise: Promise<unknown> } }[] };
  offlineQueue: { toArray(): { command: { promise: Promise<unknown> } }[] };
}

/**
 * Ends an ioredis client for good, failing the commands it holds. disconnect() alone leaves a
 * client that was waiting to reconnect (or whose socket is already gone) in its state with its
 * commands held forever and no 'end' event, which is what Bull's close() waits for; so the client
 * is ended as its own close handler would end it.
 */
function endClient(client: Queue['client']): void {
  if ((client.status as string) === 'end') return;
  expectFailures(client);
  client.options.retryStrategy = () => null;
  client.disconnect();
  client.stream?.destroy();
  if ((client.status as string) === 'end') return;
  const internals = client as unknown as EndableClient;
  internals.setStatus('end');
  internals.flushQueue(new Error('Connection is closed.'));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

import type { Logger } from '@nestjs/common';
import type { Job, JobOptions, Queue } from 'bull';
import type { OpsConfig } from '../config/config';
import { withinTime } from './time-limit';

/** For every Bull queue: bounded Redis calls, throttled error logs, the live-job check. */

export class QueueUnavailable extends Error {}

const CLOSE_CHECK_INTERVAL_MS = 1_000;

const ERROR_LOG_INTERVAL_MS = 30_000;

const LIVE_STATES = new Set(['waiting', 'active', 'delayed', 'paused']);

/** Recent jobs stay for the dashboard; the sweeps remove a finished one before re-adding it. */
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

/** Unheard, an 'error' event would end the process. */
export function logQueueErrors(queue: Queue, logger: Logger, label: string): void {
  let lastLog = 0;
  queue.on('error', (error: Error) => {
    if (Date.now() - lastLog < ERROR_LOG_INTERVAL_MS) return;
    lastLog = Date.now();
    logger.warn(`${label}: ${error.message}`);
  });
}

/** Waiting, delayed or running; a finished job still in Redis is removed so it can be re-added. */
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

/** An end at close (stopping) logs nothing; any other end is a worker that no longer consumes. */
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
    logger.error(`${label} worker stopped: ${error?.message ?? 'Redis connection ended'}`);
  });
}

function isClosing(queue: Queue): boolean {
  return (queue as Queue & { closing?: Promise<void> }).closing !== undefined;
}

/** Bull drops the CLIENT SETNAME promise: a stop before Redis answers must not reject unhandled. */
function guardWorkerNaming(queue: Queue, logger: Logger): void {
  const named = queue as Queue & { setWorkerName?: () => Promise<void> };
  const setWorkerName = named.setWorkerName?.bind(queue);
  if (!setWorkerName) return;
  named.setWorkerName = () =>
    setWorkerName().catch((error?: Error) =>
      logger.debug(`Worker connection not named: ${error?.message ?? 'connection ended'}`),
    );
}

export async function queueRedisAnswers(queue: Queue, limitMs: number): Promise<boolean> {
  if (queue.client.status !== 'ready') return false;
  try {
    await boundedQueueCall(queue.client.ping(), limitMs);
    return true;
  } catch {
    return false;
  }
}

/** Jobs in hand finish while Redis answers; once it is away, connections drop so close() ends. */
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

/** On a connection of its own: Bull's say nothing while a clean close quits them. */
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

const UNAWAITED_CALLS = ['connect', 'subscribe', 'psubscribe'] as const;
const expecting = new WeakSet<object>();

/** Failures of calls Bull and ioredis drop while closing must not be unhandled rejections. */
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

interface EndableClient {
  flushQueue(error: Error): void;
  setStatus(status: 'end'): void;
  commandQueue: { toArray(): { command: { promise: Promise<unknown> } }[] };
  offlineQueue: { toArray(): { command: { promise: Promise<unknown> } }[] };
}

/** disconnect() alone can hold a reconnecting client's commands forever: end it for good. */
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

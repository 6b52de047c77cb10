import type { Logger } from '@nestjs/common';
import type { Queue } from 'bull';

/**
 * What every Bull queue of Herald needs around it (the publication and webhook queues alike):
 * Redis calls bounded in time, Redis errors logged without flooding, the live-job check of the
 * recovery sweeps, and a worker that does not end the process when its connection is not named.
 */

/** Redis did not answer a queue call in time (PUBLICATION_ENQUEUE_TIMEOUT_MS). */
export class QueueUnavailable extends Error {}

/** Redis errors repeat while it is away; one line per interval is enough. */
const ERROR_LOG_INTERVAL_MS = 30_000;

const LIVE_STATES = new Set(['waiting', 'active', 'delayed', 'paused']);

/** Bull's client queues commands while Redis is away, so a call would hang: bound it. */
export function boundedQueueCall<T>(work: Promise<T>, limitMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new QueueUnavailable(`Redis did not answer in ${limitMs} ms`)),
      limitMs,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
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
 * Bull's process() names the worker's blocking connection (CLIENT SETNAME) and drops the promise;
 * stopping before Redis answers (a shutdown right after start, Redis away) would leave an
 * unhandled rejection, which ends a Node process. Its outcome only matters for the log.
 */
export function guardWorkerNaming(queue: Queue, logger: Logger): void {
  const named = queue as Queue & { setWorkerName?: () => Promise<void> };
  const setWorkerName = named.setWorkerName?.bind(queue);
  if (!setWorkerName) return;
  named.setWorkerName = () =>
    setWorkerName().catch((error?: Error) =>
      logger.debug(`Worker connection not named: ${error?.message ?? 'connection ended'}`),
    );
}

import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { JobOptions, Queue } from 'bull';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import {
  boundedQueueCall,
  finishedJobRetention,
  hasLiveJob,
  logQueueErrors,
} from '../../infrastructure/redis/bull-queue';

export const PUBLICATION_QUEUE = 'publication';

/** Name of the custom Bull backoff strategy: the delay comes from the RetryLater thrown. */
export const PUBLICATION_BACKOFF = 'publication';

/**
 * Bull attempts are only a safety net: pacing waits and the waits a platform asks for also go
 * through Bull's delayed retry, so the real budget of transient failures is counted per target
 * in the database (PUBLICATION_MAX_TRIES).
 */
export const JOB_ATTEMPTS = 500;

export interface PublicationJob {
  postId: number;
  attempt: number;
}

/** Thrown by a run that must continue later (pacing slot, retry_after, backoff after a 5xx). */
export class RetryLater extends Error {
  constructor(readonly delayMs: number) {
    super(`Publication continues in ${delayMs} ms`);
  }
}

/** A custom Bull backoff: the delay a RetryLater asked for; otherwise exponential. */
export function publicationBackoff(retryBaseMs: number) {
  return (attemptsMade: number, error: unknown): number =>
    error instanceof RetryLater
      ? error.delayMs
      : Math.min(retryBaseMs * 2 ** Math.max(0, attemptsMade - 1), 10 * 60_000);
}

/** One job per post and publication attempt: adding it twice adds nothing (Bull keeps ids unique). */
export function publicationJobId(postId: number, attempt: number): string {
  return `post:${postId}:${attempt}`;
}

export { QueueUnavailable } from '../../infrastructure/redis/bull-queue';

/**
 * The producer: owns the queue's job ids and options. Every call is bounded in time, because
 * Bull's client queues commands while Redis is away and `queue.add` would hang; a post whose job
 * could not be added stays in the database and the recovery sweep enqueues it later.
 */
@Injectable()
export class PublicationProducer {
  private readonly logger = new Logger(PublicationProducer.name);

  constructor(
    @InjectQueue(PUBLICATION_QUEUE) private readonly queue: Queue<PublicationJob>,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    logQueueErrors(queue, this.logger, 'Publication queue');
  }

  /** Adds the post's job, delayed until `fireAtMs` when given. False when Redis did not take it. */
  async enqueue(postId: number, attempt: number, fireAtMs: number | null = null): Promise<boolean> {
    const options: JobOptions = {
      jobId: publicationJobId(postId, attempt),
      delay: fireAtMs === null ? 0 : Math.max(0, fireAtMs - Date.now()),
      attempts: JOB_ATTEMPTS,
      backoff: { type: PUBLICATION_BACKOFF },
      ...finishedJobRetention(this.config.ops.queueHistory),
      stackTraceLimit: 1,
    };
    try {
      await this.bounded(this.queue.add({ postId, attempt }, options));
      return true;
    } catch (error) {
      this.logger.warn(
        `Post ${postId} is stored but its job was not enqueued (${(error as Error).message}); the recovery sweep will enqueue it`,
      );
      return false;
    }
  }

  /** Removes a job that is no longer wanted (an early publish drops the delayed one). Best effort. */
  async cancel(postId: number, attempt: number): Promise<void> {
    try {
      const job = await this.bounded(this.queue.getJob(publicationJobId(postId, attempt)));
      if (job && (await this.bounded(job.getState())) !== 'active')
        await this.bounded(job.remove());
    } catch (error) {
      // Harmless: the job's attempt no longer matches the post, so its run does nothing.
      this.logger.debug(`Could not remove the job of post ${postId}: ${(error as Error).message}`);
    }
  }

  /**
   * Whether the post's job is waiting, delayed or running. A finished job still in Redis is
   * removed so that it can be added again.
   */
  hasLiveJob(postId: number, attempt: number): Promise<boolean> {
    return hasLiveJob(this.queue, publicationJobId(postId, attempt), (work) => this.bounded(work));
  }

  private bounded<T>(work: Promise<T>): Promise<T> {
    return boundedQueueCall(work, this.config.publication.queueCallTimeoutMs);
  }
}

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

/** The custom backoff's delay comes from the RetryLater thrown. */
export const PUBLICATION_BACKOFF = 'publication';

/** A safety net: pacing waits retry too; real tries are counted per target in the database. */
export const JOB_ATTEMPTS = 500;

export interface PublicationJob {
  postId: number;
  attempt: number;
}

export class RetryLater extends Error {
  constructor(readonly delayMs: number) {
    super(`Publication continues in ${delayMs} ms`);
  }
}

/** The delay a RetryLater asked for; otherwise exponential. */
export function publicationBackoff(retryBaseMs: number) {
  return (attemptsMade: number, error: unknown): number =>
    error instanceof RetryLater
      ? error.delayMs
      : Math.min(retryBaseMs * 2 ** Math.max(0, attemptsMade - 1), 10 * 60_000);
}

/** Adding it twice adds nothing (Bull keeps ids unique). */
export function publicationJobId(postId: number, attempt: number): string {
  return `post:${postId}:${attempt}`;
}

export { QueueUnavailable } from '../../infrastructure/redis/bull-queue';

/** Every call is bounded in time; a post whose job was not added is enqueued later by the sweep. */
@Injectable()
export class PublicationProducer {
  private readonly logger = new Logger(PublicationProducer.name);

  constructor(
    @InjectQueue(PUBLICATION_QUEUE) private readonly queue: Queue<PublicationJob>,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    logQueueErrors(queue, this.logger, 'Publication queue');
  }

  /** False when Redis did not take it; a post due beyond the horizon is left to the sweep. */
  async enqueue(postId: number, attempt: number, fireAtMs: number | null = null): Promise<boolean> {
    if (fireAtMs !== null && fireAtMs >= Date.now() + this.config.publication.scheduleHorizonMs)
      return true;
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

  /** Best effort. */
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

  hasLiveJob(postId: number, attempt: number): Promise<boolean> {
    return hasLiveJob(this.queue, publicationJobId(postId, attempt), (work) => this.bounded(work));
  }

  private bounded<T>(work: Promise<T>): Promise<T> {
    return boundedQueueCall(work, this.config.publication.queueCallTimeoutMs);
  }
}

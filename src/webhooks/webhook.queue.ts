import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { JobOptions, Queue } from 'bull';
import type { AppConfig } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { boundedQueueCall, hasLiveJob, logQueueErrors } from '../queues/bull-queue';

/** Deliveries have a queue of their own: a slow receiver never holds up a publication. */
export const WEBHOOK_QUEUE = 'webhooks';

export interface WebhookJob {
  sendId: number;
  attempt: number;
}

/** One job per send and attempt: adding it twice adds nothing (Bull keeps ids unique). */
export function webhookJobId(sendId: number, attempt: number): string {
  return `send:${sendId}:${attempt}`;
}

/**
 * The producer of the `webhooks` queue. Every call is bounded in time (Bull's client queues
 * commands while Redis is away); a send whose job could not be added stays pending in the
 * database, and the sweep adds it later.
 */
@Injectable()
export class WebhookProducer {
  private readonly logger = new Logger(WebhookProducer.name);

  constructor(
    @InjectQueue(WEBHOOK_QUEUE) private readonly queue: Queue<WebhookJob>,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    logQueueErrors(queue, this.logger, 'Webhook queue');
  }

  /** Adds the attempt's job, delayed until `dueMs`. False when Redis did not take it. */
  async enqueue(sendId: number, attempt: number, dueMs: number): Promise<boolean> {
    const options: JobOptions = {
      jobId: webhookJobId(sendId, attempt),
      delay: Math.max(0, dueMs - Date.now()),
      attempts: 1,
      removeOnComplete: true,
      removeOnFail: true,
      stackTraceLimit: 1,
    };
    try {
      await this.bounded(this.queue.add({ sendId, attempt }, options));
      return true;
    } catch (error) {
      this.logger.warn(
        `Webhook send ${sendId} is stored but its job was not enqueued (${(error as Error).message}); the sweep will enqueue it`,
      );
      return false;
    }
  }

  /** Whether the attempt's job is waiting, delayed or running; a finished one is removed. */
  hasLiveJob(sendId: number, attempt: number): Promise<boolean> {
    return hasLiveJob(this.queue, webhookJobId(sendId, attempt), (work) => this.bounded(work));
  }

  private bounded<T>(work: Promise<T>): Promise<T> {
    return boundedQueueCall(work, this.config.publication.queueCallTimeoutMs);
  }
}

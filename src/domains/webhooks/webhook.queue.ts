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
import { EndpointBusy } from './endpoint-slots';

/** Deliveries have a queue of their own: a slow receiver never holds up a publication. */
export const WEBHOOK_QUEUE = 'webhooks';

export interface WebhookJob {
  sendId: number;
  attempt: number;
  /** The endpoint, whose share of a worker's slots the delivery takes (absent on older jobs). */
  webhookId?: number;
}

/** Name of the custom Bull backoff: only a delivery turned away by its busy endpoint is retried. */
export const WEBHOOK_BACKOFF = 'webhook';

/**
 * Bull's attempts only count the times a job was turned away by its busy endpoint (each delayed
 * until a slot frees up); a delivery's own attempts are counted in the database.
 */
const JOB_ATTEMPTS = 100_000;

/**
 * The job waits as long as its EndpointBusy asks; any other failure (the database was away) is
 * not retried by Bull: the sweep finds the send still pending once its claim lapses.
 */
export function webhookBackoff(_attemptsMade: number, error: unknown): number {
  return error instanceof EndpointBusy ? error.delayMs : -1;
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
  async enqueue(send: {
    id: number;
    attempt: number;
    webhookId: number;
    dueMs: number;
  }): Promise<boolean> {
    const { id: sendId, attempt, webhookId } = send;
    const options: JobOptions = {
      jobId: webhookJobId(sendId, attempt),
      delay: Math.max(0, send.dueMs - Date.now()),
      attempts: JOB_ATTEMPTS,
      backoff: { type: WEBHOOK_BACKOFF },
      ...finishedJobRetention(this.config.ops.queueHistory),
      stackTraceLimit: 1,
    };
    try {
      await this.bounded(this.queue.add({ sendId, attempt, webhookId }, options));
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

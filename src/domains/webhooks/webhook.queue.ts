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

/** A queue of its own: a slow receiver never holds up a publication. */
export const WEBHOOK_QUEUE = 'webhooks';

export interface WebhookJob {
  sendId: number;
  attempt: number;
  /** Absent on older jobs. */
  webhookId?: number;
}

export const WEBHOOK_BACKOFF = 'webhook';

/** Counts only turn-aways by a busy endpoint; delivery attempts are counted in the database. */
const JOB_ATTEMPTS = 100_000;

/** Only EndpointBusy is retried by Bull; the sweep finds other failures once their claim lapses. */
export function webhookBackoff(_attemptsMade: number, error: unknown): number {
  return error instanceof EndpointBusy ? error.delayMs : -1;
}

export function webhookJobId(sendId: number, attempt: number): string {
  return `send:${sendId}:${attempt}`;
}

/** Every call is bounded in time; a send whose job was not added is enqueued later by the sweep. */
@Injectable()
export class WebhookProducer {
  private readonly logger = new Logger(WebhookProducer.name);

  constructor(
    @InjectQueue(WEBHOOK_QUEUE) private readonly queue: Queue<WebhookJob>,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    logQueueErrors(queue, this.logger, 'Webhook queue');
  }

  /** False when Redis did not take it. */
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

  hasLiveJob(sendId: number, attempt: number): Promise<boolean> {
    return hasLiveJob(this.queue, webhookJobId(sendId, attempt), (work) => this.bounded(work));
  }

  private bounded<T>(work: Promise<T>): Promise<T> {
    return boundedQueueCall(work, this.config.publication.queueCallTimeoutMs);
  }
}

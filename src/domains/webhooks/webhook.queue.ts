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

export interface SendJob {
  id: number;
  attempt: number;
  webhookId: number;
  dueMs: number;
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
  async enqueue(send: SendJob): Promise<boolean> {
    return this.enqueueMany([send]);
  }

  /** One round trip for them all; false when Redis did not take them. */
  async enqueueMany(sends: SendJob[]): Promise<boolean> {
    if (sends.length === 0) return true;
    const jobs = sends.map(({ id: sendId, attempt, webhookId, dueMs }) => ({
      data: { sendId, attempt, webhookId },
      opts: {
        jobId: webhookJobId(sendId, attempt),
        delay: Math.max(0, dueMs - Date.now()),
        attempts: JOB_ATTEMPTS,
        backoff: { type: WEBHOOK_BACKOFF },
        ...finishedJobRetention(this.config.ops.queueHistory),
        stackTraceLimit: 1,
      } satisfies JobOptions,
    }));
    try {
      await this.bounded(this.queue.addBulk(jobs));
      return true;
    } catch (error) {
      const ids = sends.map((send) => send.id).join(', ');
      this.logger.warn(
        `Webhook sends ${ids} are stored but their jobs were not enqueued (${(error as Error).message}); the sweep will enqueue them`,
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

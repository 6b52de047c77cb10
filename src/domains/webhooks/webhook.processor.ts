import { InjectQueue } from '@nestjs/bull';
import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import type { AppConfig } from '../../infrastructure/config/config';
import { boundedQueueCall, closeQueue, startWorker } from '../../infrastructure/redis/bull-queue';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { EndpointBusy, EndpointSlots } from './endpoint-slots';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WEBHOOK_QUEUE, type WebhookJob } from './webhook.queue';

/** An endpoint that answers fast may have this many times its share in flight from the lanes. */
const LANE_GROWTH = 10;

/** A success within this share of the time limit is fast. */
const FAST_SHARE_OF_TIMEOUT = 10;

/** Only when APP_ROLE is `worker` or `all`; a job that throws is left to the sweep. */
@Injectable()
export class WebhookProcessor implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookProcessor.name);
  /** This worker's deliveries per endpoint, shared with the dispatcher's lanes. */
  readonly slots: EndpointSlots;

  constructor(
    @InjectQueue(WEBHOOK_QUEUE) private readonly queue: Queue<WebhookJob>,
    private readonly delivery: WebhookDeliveryService,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    const { concurrency, endpointConcurrency: cap, timeoutMs } = config.webhooks;
    // Jobs in line hold worker slots too: one endpoint's share and the line leave `cap` for others.
    const lineLimit = Math.min(cap, Math.max(0, concurrency - 2 * cap));
    this.slots = new EndpointSlots(cap, (jobId) => void this.promote(jobId), lineLimit, {
      maxLimit: cap * LANE_GROWTH,
      fastMs: timeoutMs / FAST_SHARE_OF_TIMEOUT,
    });
  }

  onModuleInit(): void {
    if (this.config.appRole === 'api') return;
    startWorker(
      this.queue,
      this.config.webhooks.concurrency,
      (job) => this.deliver(job.data),
      this.logger,
      'Webhook',
    );
    this.queue.on('failed', (job: Job<WebhookJob>, error: Error) => {
      // Put back, delayed, by its busy endpoint: woken when one of that endpoint's deliveries ends.
      if (error instanceof EndpointBusy) return this.slots.park(error.webhookId, String(job.id));
      this.logger.warn(`Webhook job ${job.id} failed: ${error.message}; the sweep retries it`);
    });
  }

  private async deliver({ sendId, attempt, webhookId }: WebhookJob): Promise<void> {
    // A job enqueued before jobs named their endpoint is delivered without a share.
    if (webhookId === undefined) {
      await this.delivery.run(sendId, attempt);
      return;
    }
    if (!(await this.slots.acquire(webhookId)))
      throw new EndpointBusy(webhookId, this.config.webhooks.timeoutMs);
    try {
      const answer = await this.delivery.run(sendId, attempt);
      if (answer) this.slots.answered(webhookId, answer);
    } finally {
      this.slots.release(webhookId);
    }
  }

  /** If it cannot be, its delay wakes it. */
  private async promote(jobId: string): Promise<void> {
    const limitMs = this.config.publication.queueCallTimeoutMs;
    try {
      const job = await boundedQueueCall(this.queue.getJob(jobId), limitMs);
      await boundedQueueCall(job?.promote() ?? Promise.resolve(), limitMs);
    } catch (error) {
      this.logger.debug(`Webhook job ${jobId} waits out its delay: ${(error as Error).message}`);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await closeQueue(this.queue, this.logger, this.config.publication.queueCallTimeoutMs);
  }
}

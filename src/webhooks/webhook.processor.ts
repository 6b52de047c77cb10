import { InjectQueue } from '@nestjs/bull';
import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import type { AppConfig } from '../config/config';
import { closeQueue, guardWorkerNaming } from '../queues/bull-queue';
import { InjectConfig } from '../config/config.module';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WEBHOOK_QUEUE, type WebhookJob } from './webhook.queue';

/**
 * Consumes the `webhooks` queue (only when APP_ROLE is `worker` or `all`). Thin: the service does
 * the work. A job that throws (the database was away) is left to the sweep, which finds its send
 * still pending once the claim lapses.
 */
@Injectable()
export class WebhookProcessor implements OnModuleInit, BeforeApplicationShutdown {
  /** Set once stopping began: the worker's end is then expected, not an error. */
  private stopping = false;
  private readonly logger = new Logger(WebhookProcessor.name);

  constructor(
    @InjectQueue(WEBHOOK_QUEUE) private readonly queue: Queue<WebhookJob>,
    private readonly delivery: WebhookDeliveryService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (this.config.appRole === 'api') return;
    guardWorkerNaming(this.queue, this.logger);
    this.queue
      .process(this.config.webhooks.concurrency, (job: Job<WebhookJob>) =>
        this.delivery.run(job.data.sendId, job.data.attempt),
      )
      .catch((error?: Error) => {
        // Once stopping began, the end is expected (D18).
        if (this.stopping) return;
        this.logger.error(`Webhook worker stopped: ${error?.message ?? 'Redis connection ended'}`);
      });
    this.queue.on('failed', (job: Job<WebhookJob>, error: Error) =>
      this.logger.warn(`Webhook job ${job.id} failed: ${error.message}; the sweep retries it`),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    await closeQueue(this.queue, this.logger, this.config.publication.enqueueTimeoutMs);
  }
}

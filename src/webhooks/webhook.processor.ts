import { InjectQueue } from '@nestjs/bull';
import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import type { AppConfig } from '../config/config';
import { closeQueue, startWorker } from '../queues/bull-queue';
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
  private readonly logger = new Logger(WebhookProcessor.name);

  constructor(
    @InjectQueue(WEBHOOK_QUEUE) private readonly queue: Queue<WebhookJob>,
    private readonly delivery: WebhookDeliveryService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (this.config.appRole === 'api') return;
    startWorker(
      this.queue,
      this.config.webhooks.concurrency,
      (job) => this.delivery.run(job.data.sendId, job.data.attempt),
      this.logger,
      'Webhook',
    );
    this.queue.on('failed', (job: Job<WebhookJob>, error: Error) =>
      this.logger.warn(`Webhook job ${job.id} failed: ${error.message}; the sweep retries it`),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    await closeQueue(this.queue, this.logger, this.config.publication.queueCallTimeoutMs);
  }
}

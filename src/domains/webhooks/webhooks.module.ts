import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import type { AppConfig } from '../../infrastructure/config/config';
import { APP_CONFIG } from '../../infrastructure/config/config.module';
import { PostsModule } from '../posts/posts.module';
import { AppWebhooksController } from './app-webhooks.controller';
import { PublicWebhooksController } from './public-webhooks.controller';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookSender } from './webhook-sender';
import { WebhookDispatcher } from './webhook.dispatcher';
import { WebhookProcessor } from './webhook.processor';
import { WEBHOOK_BACKOFF, WEBHOOK_QUEUE, WebhookProducer, webhookBackoff } from './webhook.queue';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** docs/api-rules.md#webhooks; events are written by state changes (webhook-outbox.ts). */
@Module({
  imports: [
    PostsModule,
    BullModule.registerQueueAsync({
      name: WEBHOOK_QUEUE,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        url: config.redisUrl,
        prefix: config.redisKeyPrefix,
        settings: {
          // A dead worker's attempt is found stalled and made again within about twice this.
          lockDuration: config.webhooks.lockMs,
          stalledInterval: config.webhooks.lockMs,
          backoffStrategies: { [WEBHOOK_BACKOFF]: webhookBackoff },
        },
      }),
    }),
  ],
  controllers: [PublicWebhooksController, AppWebhooksController],
  providers: [
    WebhooksRepository,
    WebhooksService,
    WebhookSender,
    WebhookProducer,
    WebhookDeliveryService,
    WebhookProcessor,
    WebhookDispatcher,
  ],
})
export class WebhooksModule {}

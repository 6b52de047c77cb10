import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import type { AppConfig } from '../../infrastructure/config/config';
import { APP_CONFIG } from '../../infrastructure/config/config.module';
import { TokenRenewalModule } from '../connections/renewal/token-renewal.module';
import { CLOCK, SYSTEM_CLOCK } from './clock';
import { DeliveryReceipts } from './delivery-receipts';
import { PublicationMonitor } from './publication-monitor';
import { PublicationProcessor } from './publication.processor';
import {
  PUBLICATION_BACKOFF,
  PUBLICATION_QUEUE,
  PublicationProducer,
  publicationBackoff,
} from './publication.queue';
import { PublicationRepository } from './publication.repository';
import { SweepRepository } from './sweep.repository';
import { PublicationService } from './publication.service';
import { PublicationSweeper } from './publication.sweeper';
import { SendGate } from './send-gate';
import { TargetDelivery } from './target-delivery';

/** The rest of Herald only enqueues (PublicationProducer). */
@Module({
  imports: [
    TokenRenewalModule,
    BullModule.registerQueueAsync({
      name: PUBLICATION_QUEUE,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        url: config.redisUrl,
        prefix: config.redisKeyPrefix,
        settings: {
          lockDuration: config.publication.lockMs,
          stalledInterval: config.publication.lockMs,
          backoffStrategies: {
            [PUBLICATION_BACKOFF]: publicationBackoff(config.publication.retryBaseMs),
          },
        },
      }),
    }),
  ],
  providers: [
    { provide: CLOCK, useValue: SYSTEM_CLOCK },
    PublicationProducer,
    PublicationRepository,
    SweepRepository,
    PublicationService,
    PublicationProcessor,
    PublicationSweeper,
    SendGate,
    TargetDelivery,
    DeliveryReceipts,
    PublicationMonitor,
  ],
  exports: [PublicationProducer, PublicationMonitor],
})
export class PublicationModule {}

import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import type { AppConfig } from '../../infrastructure/config/config';
import { APP_CONFIG } from '../../infrastructure/config/config.module';
import { MediaModule } from '../media/media.module';
import { PostsRepository } from './posts.repository';
import { PostsService } from './posts.service';
import { PublicPostsController } from './public-posts.controller';
import { ConfirmedSends } from './publication/confirmed-sends';
import { PublicationProcessor } from './publication/publication.processor';
import {
  PUBLICATION_BACKOFF,
  PUBLICATION_QUEUE,
  PublicationProducer,
  publicationBackoff,
} from './publication/publication.queue';
import { PublicationRepository } from './publication/publication.repository';
import { PublicationService } from './publication/publication.service';
import { PublicationSweeper } from './publication/publication.sweeper';

@Module({
  imports: [
    MediaModule,
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
  controllers: [PublicPostsController],
  providers: [
    PostsRepository,
    PostsService,
    PublicationProducer,
    PublicationRepository,
    PublicationService,
    PublicationProcessor,
    PublicationSweeper,
    ConfirmedSends,
  ],
  exports: [PostsService],
})
export class PostsModule {}

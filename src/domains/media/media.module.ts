import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MediaAsset } from './media-asset.entity';
import { MediaFilesController } from './media-files.controller';
import { MediaUploadInterceptor } from './media-upload.interceptor';
import { MediaRepository } from './media.repository';
import { MediaService } from './media.service';
import { PublicMediaController } from './public-media.controller';
import { UrlFetcher } from './url-fetcher';

/** docs/api-rules.md#media; the storage driver comes from the global StorageModule. */
@Module({
  imports: [TypeOrmModule.forFeature([MediaAsset])],
  controllers: [PublicMediaController, MediaFilesController],
  providers: [MediaService, MediaRepository, UrlFetcher, MediaUploadInterceptor],
  exports: [MediaService],
})
export class MediaModule {}

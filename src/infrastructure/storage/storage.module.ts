import { Global, Module } from '@nestjs/common';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { LocalDiskStorage } from './local-disk.storage';
import { S3Storage } from './s3.storage';
import { STORAGE_DRIVER } from './storage-driver';

/** By MEDIA_STORAGE_DRIVER: local disk (the default) or an S3-compatible bucket. */
@Global()
@Module({
  providers: [
    {
      provide: STORAGE_DRIVER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        config.mediaStorageDriver === 's3' ? new S3Storage(config) : new LocalDiskStorage(config),
    },
  ],
  exports: [STORAGE_DRIVER],
})
export class StorageModule {}

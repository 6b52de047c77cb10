import { Global, Module } from '@nestjs/common';
import { LocalDiskStorage } from './local-disk.storage';
import { STORAGE_DRIVER } from './storage-driver';

/** Provides the `StorageDriver` everywhere: local disk at `MEDIA_STORAGE_DIR` (the default driver). */
@Global()
@Module({
  providers: [{ provide: STORAGE_DRIVER, useClass: LocalDiskStorage }],
  exports: [STORAGE_DRIVER],
})
export class StorageModule {}

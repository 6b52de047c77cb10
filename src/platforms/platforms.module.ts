import { Global, Module } from '@nestjs/common';
import { PLATFORMS, type Platform } from './platform';
import { PlatformRegistry } from './platform-registry';
import { TelegramModule } from './telegram/telegram.module';
import { TelegramPlatform } from './telegram/telegram.platform';

/**
 * Registers the platforms Herald publishes to: a platform is its folder's module, imported here,
 * and its Platform, listed in PLATFORMS.
 */
@Global()
@Module({
  imports: [TelegramModule],
  providers: [
    {
      provide: PLATFORMS,
      inject: [TelegramPlatform],
      useFactory: (...platforms: Platform[]): Platform[] => platforms,
    },
    PlatformRegistry,
  ],
  exports: [PLATFORMS, PlatformRegistry],
})
export class PlatformsModule {}

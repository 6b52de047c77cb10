import { Global, Module } from '@nestjs/common';
import { BlueskyConnector } from './bluesky/bluesky-connector';
import { BlueskyXrpcModule } from './bluesky/bluesky-xrpc.module';
import { BlueskyModule } from './bluesky/bluesky.module';
import { BlueskyPlatform } from './bluesky/bluesky.platform';
import { DiscordApiModule } from './discord/discord-api.module';
import { DiscordConnector } from './discord/discord-connector';
import { DiscordModule } from './discord/discord.module';
import { DiscordPlatform } from './discord/discord.platform';
import { MastodonApiModule } from './mastodon/mastodon-api.module';
import { MastodonConnector } from './mastodon/mastodon-connector';
import { MastodonModule } from './mastodon/mastodon.module';
import { MastodonPlatform } from './mastodon/mastodon.platform';
import { PLATFORM_CONNECTORS, PLATFORMS, type Platform, type PlatformConnector } from './platform';
import { PlatformConnectors } from './platform-connectors';
import { PlatformRegistry } from './platform-registry';
import { TelegramBotApiModule } from './telegram/telegram-bot-api.module';
import { TelegramConnector } from './telegram/telegram-connector';
import { TelegramModule } from './telegram/telegram.module';
import { TelegramPlatform } from './telegram/telegram.platform';

/**
 * The platforms' account connectors alone (no pacing, no Redis): what the CLI loads. A platform's
 * connector module is imported here and its connector listed in PLATFORM_CONNECTORS.
 */
@Global()
@Module({
  imports: [TelegramBotApiModule, DiscordApiModule, MastodonApiModule, BlueskyXrpcModule],
  providers: [
    {
      provide: PLATFORM_CONNECTORS,
      inject: [TelegramConnector, DiscordConnector, MastodonConnector, BlueskyConnector],
      useFactory: (...connectors: PlatformConnector[]): PlatformConnector[] => connectors,
    },
    PlatformConnectors,
  ],
  exports: [PLATFORM_CONNECTORS, PlatformConnectors],
})
export class PlatformConnectorsModule {}

/**
 * Registers the platforms Herald publishes to: a platform is its folder's module, imported here,
 * and its Platform, listed in PLATFORMS.
 */
@Global()
@Module({
  imports: [PlatformConnectorsModule, TelegramModule, DiscordModule, MastodonModule, BlueskyModule],
  providers: [
    {
      provide: PLATFORMS,
      inject: [TelegramPlatform, DiscordPlatform, MastodonPlatform, BlueskyPlatform],
      useFactory: (...platforms: Platform[]): Platform[] => platforms,
    },
    PlatformRegistry,
  ],
  exports: [PLATFORMS, PlatformRegistry],
})
export class PlatformsModule {}

import { Global, Module } from '@nestjs/common';
import { DiscordApi } from './discord-api';
import { DiscordConnector } from './discord-connector';

/**
 * The REST client and the account connector alone, for what connects accounts (the CLI has no
 * Redis, so no pacing).
 */
@Global()
@Module({
  providers: [DiscordApi, DiscordConnector],
  exports: [DiscordApi, DiscordConnector],
})
export class DiscordApiModule {}

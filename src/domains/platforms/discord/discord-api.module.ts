import { Global, Module } from '@nestjs/common';
import { DiscordApi } from './discord-api';
import { DiscordConnector } from './discord-connector';

/** The connector alone, without Redis or pacing, for the CLI. */
@Global()
@Module({
  providers: [DiscordApi, DiscordConnector],
  exports: [DiscordApi, DiscordConnector],
})
export class DiscordApiModule {}

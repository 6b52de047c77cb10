import { Module } from '@nestjs/common';
import type { PlatformNest } from '../platform-descriptor';
import { DiscordConnector } from './discord-connector';
import { DiscordApiModule } from './discord-api.module';
import { DiscordPacing } from './discord-pacing';
import { DiscordPublisher } from './discord-publisher';
import { DiscordPlatform } from './discord.platform';

/** Discord as a platform: its REST client, publisher and pacing. */
@Module({
  imports: [DiscordApiModule],
  providers: [DiscordPacing, DiscordPublisher, DiscordPlatform],
  exports: [DiscordPlatform],
})
export class DiscordModule {}

/** What Discord's descriptor hands the application's assembly. */
export const DISCORD_NEST: PlatformNest = {
  module: DiscordModule,
  platform: DiscordPlatform,
  connectorModule: DiscordApiModule,
  connector: DiscordConnector,
};

import { definePlatform } from '../platform-descriptor';
import { DiscordApiModule } from './discord-api.module';
import { DISCORD_CHANNELS, DISCORD_CONNECT } from './discord-connect';
import { DiscordConnector } from './discord-connector';
import { DiscordVariables, readDiscordSettings } from './discord-settings';
import { DiscordModule } from './discord.module';
import { DiscordPlatform } from './discord.platform';

export const DISCORD = definePlatform({
  name: 'discord',
  displayName: 'Discord',
  errors: { discord_rejected: 400, discord_unavailable: 502 },
  settings: { schema: DiscordVariables, read: readDiscordSettings },
  connect: DISCORD_CONNECT,
  channels: DISCORD_CHANNELS,
  examples: {
    channelRef: 'discord:7:1100000000000000001',
    channelId: 'a Discord channel id',
    channelUrl: 'https://discord.com/channels/1100000000000000000/1100000000000000001',
    messageUrl:
      'https://discord.com/channels/1100000000000000000/1100000000000000001/1200000000000000001',
    demoChannelId: '1100000000000000003',
  },
  aiAudience: 'Discord channels',
  callMetric: {
    name: 'herald_discord_request_duration_seconds',
    help: 'Discord REST API calls by method and outcome',
    // The calls Herald makes (GET /users/@me, GET /channels/{id}, POST /channels/{id}/messages).
    methods: ['getCurrentUser', 'getChannel', 'createMessage'],
  },
  // The bot token travels in the Authorization header, never in a path.
  logMasks: [],
  nest: {
    module: DiscordModule,
    platform: DiscordPlatform,
    connectorModule: DiscordApiModule,
    connector: DiscordConnector,
  },
});

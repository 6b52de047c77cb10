import { definePlatform } from '../platform-descriptor';
import { DISCORD_CHANNELS, DISCORD_CONNECT } from './discord-connect';
import { DiscordVariables, readDiscordSettings } from './discord-settings';

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
  nest: () => (require('./discord.module') as typeof import('./discord.module')).DISCORD_NEST,
});

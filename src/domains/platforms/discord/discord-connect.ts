import type { ChannelMethod, ConnectMethod } from '../platform-descriptor';

export const DISCORD_CONNECT: ConnectMethod = {
  mode: 'credentials',
  fields: [
    {
      name: 'bot_token',
      // Three base64url parts: the bot's id, a time and a signature.
      pattern: /^[A-Za-z0-9_-]{16,40}\.[A-Za-z0-9_-]{4,10}\.[A-Za-z0-9_-]{20,80}$/,
      patternMessage: 'bot_token must be a Discord bot token',
      description:
        "the bot token from the developer portal (the application's Bot page, Reset Token)",
    },
  ],
  checkedWith: "a Discord bot's `bot_token` (GET /users/@me)",
  example: {
    bot_token: 'MTEwMDAwMDAwMDAwMDAwMDAwMQ.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789AB',
  },
};

export const DISCORD_CHANNELS: ChannelMethod = {
  fields: [
    {
      name: 'channel_id',
      pattern: /^\d{1,20}$/,
      patternMessage: 'channel_id must be a Discord channel id (copy it with developer mode on)',
      description:
        'the id of a text or announcement channel the bot can see (with developer mode on, right-click the channel, Copy Channel ID)',
      example: '1100000000000000001',
    },
  ],
  checkedWith:
    'a Discord `channel_id` (a text or announcement channel, checked with GET /channels/{id})',
  example: { channel_id: '1100000000000000001' },
};

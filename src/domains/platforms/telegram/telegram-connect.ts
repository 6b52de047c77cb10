import type { PlatformIdentity } from '../platform';
import type { ChannelMethod, ConnectMethod } from '../platform-descriptor';

export const TELEGRAM_CONNECT: ConnectMethod = {
  mode: 'credentials',
  fields: [
    {
      name: 'bot_token',
      pattern: /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/,
      patternMessage: 'bot_token must be a Telegram bot token',
      description: 'the bot token from @BotFather',
      example: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw',
    },
  ],
  checkedWith: "a Telegram bot's `bot_token` (checked with getMe)",
  example: { bot_token: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw' },
};

export const TELEGRAM_CHANNELS: ChannelMethod = {
  fields: [
    {
      name: 'chat',
      pattern: /^(-?\d{1,20}|@[A-Za-z0-9_]{4,32})$/,
      patternMessage: 'chat must be a numeric chat id or an @username',
      description: 'numeric chat id or @username',
      example: '@herald_news',
    },
  ],
  checkedWith: 'A Telegram `chat` (numeric id or @username, checked with getChat)',
  example: { chat: '@herald_news' },
};

/** Placeholders no bot can post to until real credentials are set. */
export const TELEGRAM_DEMO_CHANNELS: readonly PlatformIdentity[] = [
  { id: '-1001000000001', title: 'Herald demo channel', username: 'herald_demo_channel' },
  { id: '-1001000000002', title: 'Herald demo chat', username: null },
];

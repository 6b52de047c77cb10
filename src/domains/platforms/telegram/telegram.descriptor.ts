import { definePlatform } from '../platform-descriptor';
import { TELEGRAM_CHANNELS, TELEGRAM_CONNECT, TELEGRAM_DEMO_CHANNELS } from './telegram-connect';
import { readTelegramSettings, TelegramVariables } from './telegram-settings';

export const TELEGRAM = definePlatform({
  name: 'telegram',
  displayName: 'Telegram',
  errors: { telegram_rejected: 400, telegram_unavailable: 502 },
  settings: {
    schema: TelegramVariables,
    read: readTelegramSettings,
    earlierNames: { PUBLICATION_SEND_TIMEOUT_MS: 'TELEGRAM_SEND_TIMEOUT_MS' },
  },
  connect: TELEGRAM_CONNECT,
  channels: TELEGRAM_CHANNELS,
  examples: {
    channelRef: 'telegram:12:-1001234567890',
    channelId: 'a Telegram chat id (may be negative)',
    channelUrl: 'https://t.me/herald_news',
    messageUrl: 'https://t.me/herald_news/42',
    demoChannelId: TELEGRAM_DEMO_CHANNELS[0].id,
  },
  aiAudience: 'Telegram channels',
  callMetric: {
    name: 'herald_telegram_request_duration_seconds',
    help: 'Telegram Bot API calls by method and outcome',
    // Bot API methods Herald calls; anything else is counted as `other` (bounded labels).
    methods: ['getMe', 'getChat', 'sendMessage', 'sendPhoto', 'sendVideo', 'sendMediaGroup'],
  },
  // A Bot API path carries the token: `/bot<token>/`.
  logMasks: [{ pattern: /\/bot[^/]+\//, replacement: '/bot<redacted>/' }],
  nest: () => (require('./telegram.module') as typeof import('./telegram.module')).TELEGRAM_NEST,
});

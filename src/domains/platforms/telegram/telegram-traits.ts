import type { PlatformTraits } from '../platform-traits';

/** Telegram as data for the generic code (metrics, AI wording, log masking). */
export const TELEGRAM_TRAITS: PlatformTraits = {
  name: 'telegram',
  displayName: 'Telegram',
  aiAudience: 'Telegram channels',
  callMetric: {
    name: 'herald_telegram_request_duration_seconds',
    help: 'Telegram Bot API calls by method and outcome',
    // Bot API methods Herald calls; anything else is counted as `other` (bounded labels).
    methods: ['getMe', 'getChat', 'sendMessage', 'sendPhoto', 'sendVideo', 'sendMediaGroup'],
  },
  // A Bot API path carries the token: `/bot<token>/`.
  logMasks: [{ pattern: /\/bot[^/]+\//, replacement: '/bot<redacted>/' }],
};

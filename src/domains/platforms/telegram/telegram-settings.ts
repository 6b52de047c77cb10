import type { AppConfig } from '../../../infrastructure/config/config';
import { UrlOf, WholeNumber } from '../../../infrastructure/config/variable-rules';

/** Telegram's environment variables, their defaults and rules. */
export class TelegramVariables {
  @UrlOf(['http:', 'https:'])
  TELEGRAM_API_BASE_URL = 'https://api.telegram.org';

  @WholeNumber(1, 1_000_000)
  TELEGRAM_BOT_MESSAGES_PER_SECOND = 30;

  @WholeNumber(1, 1_000_000)
  TELEGRAM_CHAT_MESSAGES_PER_MINUTE = 20;
}

export interface TelegramSettings {
  /** The Bot API's address (the operator's, never checked as an outbound address). */
  apiBaseUrl: string;
  /** Pacing: messages per second per bot, and per minute per bot and chat. */
  botMessagesPerSecond: number;
  chatMessagesPerMinute: number;
}

export function readTelegramSettings(v: TelegramVariables): TelegramSettings {
  return {
    apiBaseUrl: v.TELEGRAM_API_BASE_URL.replace(/\/+$/, ''),
    botMessagesPerSecond: v.TELEGRAM_BOT_MESSAGES_PER_SECOND,
    chatMessagesPerMinute: v.TELEGRAM_CHAT_MESSAGES_PER_MINUTE,
  };
}

export function telegramSettings(config: AppConfig): TelegramSettings {
  return config.platforms.telegram as TelegramSettings;
}

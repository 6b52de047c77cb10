import { Injectable } from '@nestjs/common';
import type { Platform } from '../platform';
import type { PlatformChannel } from '../platform-answers';
import { TelegramConnector } from './telegram-connector';
import { TELEGRAM_LIMITS, telegramChannelUrl, telegramMessageUrl } from './telegram-links';
import { TelegramPacing } from './telegram-pacing';
import { TelegramPublisher } from './telegram-publisher';

/** Telegram behind the platform interfaces. */
@Injectable()
export class TelegramPlatform implements Platform {
  readonly name = 'telegram';
  readonly limits = TELEGRAM_LIMITS;

  constructor(
    readonly publisher: TelegramPublisher,
    readonly pacing: TelegramPacing,
    readonly connector: TelegramConnector,
  ) {}

  channelUrl(channel: PlatformChannel): string | null {
    return telegramChannelUrl(channel);
  }

  messageUrl(channel: PlatformChannel, messageId: string): string | null {
    return telegramMessageUrl(channel, messageId);
  }

  /** Telegram's message ids are integers: `message_ids` has always listed them. */
  listedMessageId(messageId: string): number {
    return Number(messageId);
  }
}

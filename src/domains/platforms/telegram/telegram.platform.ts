import { Injectable } from '@nestjs/common';
import type { Platform, ReplyMode } from '../platform';
import type { PlatformChannel } from '../platform-answers';
import { TelegramConnector } from './telegram-connector';
import { TELEGRAM_LIMITS, telegramChannelUrl, telegramMessageUrl } from './telegram-links';
import { TelegramPacing } from './telegram-pacing';
import { TELEGRAM_CAPTION_LIMIT, TelegramPublisher } from './telegram-publisher';

@Injectable()
export class TelegramPlatform implements Platform {
  readonly name = 'telegram';
  readonly displayName = 'Telegram';
  readonly replies: ReplyMode = 'chain';
  readonly limits = TELEGRAM_LIMITS;
  readonly captionMax = TELEGRAM_CAPTION_LIMIT;
  /** No key recognises a send tried again: an unknown outcome stays unknown. */
  readonly confirmsByKey = false;
  readonly accountLimits = false;

  constructor(
    readonly publisher: TelegramPublisher,
    readonly pacing: TelegramPacing,
    readonly connector: TelegramConnector,
  ) {}

  measureText(text: string): number {
    return text.length;
  }

  channelUrl(channel: PlatformChannel): string | null {
    return telegramChannelUrl(channel);
  }

  messageUrl(channel: PlatformChannel, messageId: string): string | null {
    return telegramMessageUrl(channel, messageId);
  }

  listedMessageId(messageId: string): number {
    return Number(messageId);
  }
}

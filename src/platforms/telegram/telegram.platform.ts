import { Injectable } from '@nestjs/common';
import type { Platform } from '../platform';
import { TelegramPacing } from './telegram-pacing';
import { TelegramPublisher } from './telegram-publisher';

/** Telegram behind the platform interfaces (D15). */
@Injectable()
export class TelegramPlatform implements Platform {
  readonly name = 'telegram';

  constructor(
    readonly publisher: TelegramPublisher,
    readonly pacing: TelegramPacing,
  ) {}
}

import { Module } from '@nestjs/common';
import type { PlatformNest } from '../platform-descriptor';
import { TelegramConnector } from './telegram-connector';
import { TelegramBotApiModule } from './telegram-bot-api.module';
import { TelegramPacing } from './telegram-pacing';
import { TelegramPublisher } from './telegram-publisher';
import { TelegramPlatform } from './telegram.platform';

/** Telegram as a platform: its Bot API client, publisher and pacing. */
@Module({
  imports: [TelegramBotApiModule],
  providers: [TelegramPacing, TelegramPublisher, TelegramPlatform],
  exports: [TelegramPlatform],
})
export class TelegramModule {}

/** What Telegram's descriptor hands the application's assembly. */
export const TELEGRAM_NEST: PlatformNest = {
  module: TelegramModule,
  platform: TelegramPlatform,
  connectorModule: TelegramBotApiModule,
  connector: TelegramConnector,
};

import { Module } from '@nestjs/common';
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

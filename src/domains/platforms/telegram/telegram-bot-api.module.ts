import { Global, Module } from '@nestjs/common';
import { TelegramBotApi } from './telegram-bot-api';
import { TelegramConnector } from './telegram-connector';

/** The connector alone, without Redis or pacing, for the CLI. */
@Global()
@Module({
  providers: [TelegramBotApi, TelegramConnector],
  exports: [TelegramBotApi, TelegramConnector],
})
export class TelegramBotApiModule {}

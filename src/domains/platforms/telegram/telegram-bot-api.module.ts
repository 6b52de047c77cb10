import { Global, Module } from '@nestjs/common';
import { TelegramBotApi } from './telegram-bot-api';
import { TelegramConnector } from './telegram-connector';

/**
 * The Bot API client and the account connector alone, for what connects accounts (the CLI has no
 * Redis, so no pacing).
 */
@Global()
@Module({
  providers: [TelegramBotApi, TelegramConnector],
  exports: [TelegramBotApi, TelegramConnector],
})
export class TelegramBotApiModule {}

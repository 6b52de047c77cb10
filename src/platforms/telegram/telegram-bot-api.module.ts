import { Global, Module } from '@nestjs/common';
import { TelegramBotApi } from './telegram-bot-api';

/** The Bot API client alone, for what connects accounts (the CLI has no Redis, so no pacing). */
@Global()
@Module({ providers: [TelegramBotApi], exports: [TelegramBotApi] })
export class TelegramBotApiModule {}

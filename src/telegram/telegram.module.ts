import { Global, Module } from '@nestjs/common';
import { TelegramBotApi } from './telegram-bot-api';

@Global()
@Module({ providers: [TelegramBotApi], exports: [TelegramBotApi] })
export class TelegramModule {}

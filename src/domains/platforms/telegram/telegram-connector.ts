import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError } from '../../../http/errors/error-codes';
import { platformRateLimited } from '../platform-rate-limit';
import type {
  ConnectedAccount,
  ConnectFields,
  DemoAccount,
  PlatformConnector,
  PlatformIdentity,
} from '../platform';
import { readFields } from '../connect-fields';
import { TELEGRAM_CHANNELS, TELEGRAM_CONNECT, TELEGRAM_DEMO_CHANNELS } from './telegram-connect';
import {
  TelegramApiError,
  TelegramBotApi,
  TelegramChat,
  TelegramTransportError,
  TelegramUser,
} from './telegram-bot-api';

@Injectable()
export class TelegramConnector implements PlatformConnector {
  readonly platform = 'telegram';
  readonly displayName = 'Telegram';

  constructor(private readonly api: TelegramBotApi) {}

  /** Checked with getMe; the token itself is what the account keeps. */
  async connect(fields: ConnectFields): Promise<ConnectedAccount> {
    const botToken = readFields(fields, TELEGRAM_CONNECT.fields, this.displayName)
      .bot_token as string;
    const bot = await this.check(() => this.api.getMe(botToken));
    return {
      id: String(bot.id),
      title: botTitle(bot),
      username: bot.username ?? null,
      secret: botToken,
    };
  }

  /** `chat` is a numeric id or an @username; its numeric id is kept as text. */
  async addChannel(botToken: string, fields: ConnectFields): Promise<PlatformIdentity> {
    const { chat: wanted } = readFields(fields, TELEGRAM_CHANNELS.fields, this.displayName);
    const chat = await this.check(() => this.api.getChat(botToken, wanted as string));
    return { id: String(chat.id), title: chatTitle(chat), username: chat.username ?? null };
  }

  demo(): DemoAccount {
    const token = `100000001:${randomBytes(24)
      .toString('base64url')
      .replace(/[^A-Za-z0-9]/g, 'z')}`;
    return {
      account: {
        id: '100000001',
        title: 'Herald demo bot',
        username: 'herald_demo_bot',
        secret: token,
      },
      channels: TELEGRAM_DEMO_CHANNELS.map((channel) => ({ ...channel })),
    };
  }

  /** 429 is a rate limit (its retry_after kept), another 4xx a refusal, the rest unavailable. */
  private async check<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof TelegramApiError && error.errorCode === 429)
        throw platformRateLimited(
          'Telegram',
          error.retryAfterSeconds === null ? null : error.retryAfterSeconds * 1000,
        );
      if (error instanceof TelegramApiError && error.errorCode < 500 && error.errorCode !== 429) {
        throw new AppError(
          'telegram_rejected',
          `Telegram rejected the request: ${error.description}`,
        );
      }
      if (error instanceof TelegramApiError || error instanceof TelegramTransportError) {
        throw new AppError(
          'telegram_unavailable',
          'Telegram could not be reached; try again later',
        );
      }
      throw error;
    }
  }
}

function botTitle(bot: TelegramUser): string {
  return bot.first_name || bot.username || `bot ${bot.id}`;
}

function chatTitle(chat: TelegramChat): string {
  return chat.title ?? chat.first_name ?? chat.username ?? String(chat.id);
}

import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Channel } from '../channels/channel.entity';
import { toChannelDto } from '../channels/channels.service';
import { ChannelDto } from '../channels/dto/channel.dto';
import { SecretsService } from '../crypto/secrets.service';
import { formatTimestamp } from '../database/timestamps';
import { isUniqueViolation } from '../database/query-errors';
import { AppError } from '../errors/error-codes';
import { ProjectResolvers } from '../members/project-resolvers';
import {
  TelegramApiError,
  TelegramBotApi,
  TelegramChat,
  TelegramTransportError,
  TelegramUser,
} from '../platforms/telegram/telegram-bot-api';
import { Account } from './account.entity';
import { AccountResponseDto } from './dto/account.dto';

export interface DemoAccountInput {
  botToken: string;
  bot: { id: number; title: string; username: string | null };
  channels: { chatId: string; title: string; username: string | null }[];
}

@Injectable()
export class AccountsService implements OnModuleInit {
  constructor(
    @InjectRepository(Account) private readonly accounts: Repository<Account>,
    @InjectRepository(Channel) private readonly channels: Repository<Channel>,
    private readonly secrets: SecretsService,
    private readonly telegram: TelegramBotApi,
    private readonly resolvers: ProjectResolvers,
  ) {}

  onModuleInit(): void {
    this.resolvers.register('account', {
      resolve: async (id) =>
        (await this.accounts.findOne({ where: { id }, select: { projectId: true } }))?.projectId ??
        null,
      notFound: { code: 'account_not_found', message: 'Account not found' },
    });
  }

  /** Connects a Telegram bot: the token is checked with getMe and stored sealed (D13, D15). */
  async create(projectId: number, botToken: string): Promise<AccountResponseDto> {
    const bot = await this.checkTelegram(() => this.telegram.getMe(botToken));
    const account = await this.accounts.save(
      this.accounts.create({
        projectId,
        platform: 'telegram',
        externalId: String(bot.id),
        title: botTitle(bot),
        username: bot.username ?? null,
        credentialsEncrypted: this.secrets.seal(botToken),
        needsReconnect: false,
      }),
    );
    return this.view(account.id);
  }

  /** Replaces the bot token after a getMe check, and clears needs_reconnect. */
  async updateToken(accountId: number, botToken: string): Promise<AccountResponseDto> {
    const bot = await this.checkTelegram(() => this.telegram.getMe(botToken));
    await this.accounts.update(
      { id: accountId },
      {
        externalId: String(bot.id),
        title: botTitle(bot),
        username: bot.username ?? null,
        credentialsEncrypted: this.secrets.seal(botToken),
        needsReconnect: false,
      },
    );
    return this.view(accountId);
  }

  async remove(accountId: number): Promise<void> {
    await this.accounts.delete({ id: accountId });
  }

  /** Adds a chat the bot can post to, checked with getChat; its numeric id is kept as text. */
  async addChannel(accountId: number, chat: string): Promise<ChannelDto> {
    const account = await this.accounts.findOneByOrFail({ id: accountId });
    const found = await this.checkTelegram(() =>
      this.telegram.getChat(this.botToken(account), chat),
    );
    try {
      const channel = await this.channels.save(
        this.channels.create({
          projectId: account.projectId,
          accountId: account.id,
          platform: account.platform,
          channelId: String(found.id),
          title: chatTitle(found),
          username: found.username ?? null,
        }),
      );
      return toChannelDto({
        ...channel,
        account_id: channel.accountId,
        channel_id: channel.channelId,
        needs_reconnect: account.needsReconnect,
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new AppError('channel_exists', 'This chat is already a channel of the account');
      }
      throw error;
    }
  }

  /** The bot token in clear, for the moment of a call; never logged, never returned. */
  botToken(account: Account): string {
    return this.secrets.open(account.credentialsEncrypted);
  }

  /** Seeds an account without asking Telegram, for `cli seed-demo` on machines with no internet. */
  async createUnchecked(
    projectId: number,
    input: DemoAccountInput,
  ): Promise<{ account: AccountResponseDto; channels: ChannelDto[] }> {
    const account = await this.accounts.save(
      this.accounts.create({
        projectId,
        platform: 'telegram',
        externalId: String(input.bot.id),
        title: input.bot.title,
        username: input.bot.username,
        credentialsEncrypted: this.secrets.seal(input.botToken),
        needsReconnect: false,
      }),
    );
    const channels: ChannelDto[] = [];
    for (const chat of input.channels) {
      const channel = await this.channels.save(
        this.channels.create({
          projectId,
          accountId: account.id,
          platform: 'telegram',
          channelId: chat.chatId,
          title: chat.title,
          username: chat.username,
        }),
      );
      channels.push(
        toChannelDto({
          ...channel,
          account_id: account.id,
          channel_id: channel.channelId,
          needs_reconnect: false,
        }),
      );
    }
    return { account: await this.view(account.id), channels };
  }

  private async view(accountId: number): Promise<AccountResponseDto> {
    const account = await this.accounts.findOneByOrFail({ id: accountId });
    return {
      id: account.id,
      project_id: account.projectId,
      platform: account.platform,
      title: account.title,
      username: account.username,
      needs_reconnect: account.needsReconnect,
      created_at: formatTimestamp(account.createdAt),
    };
  }

  private async checkTelegram<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
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

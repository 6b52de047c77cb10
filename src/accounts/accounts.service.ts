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
import type { ConnectFields, DemoAccount, PlatformIdentity } from '../platforms/platform';
import { PlatformConnectors } from '../platforms/platform-connectors';
import { Account } from './account.entity';
import { AccountResponseDto } from './dto/account.dto';

@Injectable()
export class AccountsService implements OnModuleInit {
  constructor(
    @InjectRepository(Account) private readonly accounts: Repository<Account>,
    @InjectRepository(Channel) private readonly channels: Repository<Channel>,
    private readonly secrets: SecretsService,
    private readonly connectors: PlatformConnectors,
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

  /**
   * Connects an account: its platform checks the credentials (each platform reads its own fields
   * of the body), and what it keeps of them is stored sealed.
   */
  async create(
    projectId: number,
    platform: Account['platform'],
    fields: ConnectFields,
  ): Promise<AccountResponseDto> {
    const connected = await this.connectors.get(platform).connect(fields);
    const account = await this.accounts.save(
      this.accounts.create({
        projectId,
        platform,
        externalId: connected.id,
        title: connected.title,
        username: connected.username,
        credentialsEncrypted: this.secrets.seal(connected.secret),
        needsReconnect: false,
      }),
    );
    return this.view(account.id);
  }

  /** Replaces the credentials after the platform checked them, and clears needs_reconnect. */
  async updateCredentials(accountId: number, fields: ConnectFields): Promise<AccountResponseDto> {
    const account = await this.accounts.findOneByOrFail({ id: accountId });
    const connected = await this.connectors.get(account.platform).connect(fields);
    await this.accounts.update(
      { id: accountId },
      {
        externalId: connected.id,
        title: connected.title,
        username: connected.username,
        credentialsEncrypted: this.secrets.seal(connected.secret),
        needsReconnect: false,
      },
    );
    return this.view(accountId);
  }

  async remove(accountId: number): Promise<void> {
    await this.accounts.delete({ id: accountId });
  }

  /** Adds a channel the account can post to, as its platform checked it. */
  async addChannel(accountId: number, fields: ConnectFields): Promise<ChannelDto> {
    const account = await this.accounts.findOneByOrFail({ id: accountId });
    const found = await this.connectors
      .get(account.platform)
      .addChannel(this.secret(account), fields);
    try {
      return await this.saveChannel(account, found);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new AppError('channel_exists', 'This chat is already a channel of the account');
      }
      throw error;
    }
  }

  /** The account's credentials in clear, for the moment of a call; never logged, never returned. */
  private secret(account: Account): string {
    return this.secrets.open(account.credentialsEncrypted);
  }

  /**
   * Seeds the demo account of the first platform registered, without asking the platform, for
   * `cli seed-demo` on machines with no internet. The platform's name as people write it too.
   */
  async createDemo(
    projectId: number,
  ): Promise<{ displayName: string; account: AccountResponseDto; channels: ChannelDto[] }> {
    const [connector] = this.connectors.all();
    const demo: DemoAccount = connector.demo();
    const account = await this.accounts.save(
      this.accounts.create({
        projectId,
        platform: connector.platform,
        externalId: demo.account.id,
        title: demo.account.title,
        username: demo.account.username,
        credentialsEncrypted: this.secrets.seal(demo.account.secret),
        needsReconnect: false,
      }),
    );
    const channels: ChannelDto[] = [];
    for (const found of demo.channels) {
      channels.push(await this.saveChannel(account, found));
    }
    return { displayName: connector.displayName, account: await this.view(account.id), channels };
  }

  /** Stores a channel of the account as its platform described it. */
  private async saveChannel(account: Account, found: PlatformIdentity): Promise<ChannelDto> {
    const channel = await this.channels.save(
      this.channels.create({
        projectId: account.projectId,
        accountId: account.id,
        platform: account.platform,
        channelId: found.id,
        title: found.title,
        username: found.username,
      }),
    );
    return toChannelDto({
      ...channel,
      account_id: account.id,
      channel_id: channel.channelId,
      needs_reconnect: account.needsReconnect,
    });
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
}

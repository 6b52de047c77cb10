import { Injectable, OnModuleInit, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, Repository } from 'typeorm';
import { Channel } from '../channels/channel.entity';
import type { ChannelRow } from '../channels/channels.repository';
import { toChannelDto, toChannelListItem } from '../channels/channels.service';
import { ChannelDto, ChannelListItemDto } from '../channels/dto/channel.dto';
import { SecretsService } from '../../infrastructure/config/secrets.service';
import { formatTimestamp } from '../../infrastructure/database/timestamps';
import { isUniqueViolation } from '../../infrastructure/database/query-errors';
import { AppError } from '../../http/errors/error-codes';
import { ProjectResolvers } from '../../access/project-resolvers';
import type { ConnectFields, DemoAccount, PlatformIdentity } from '../platforms/platform';
import { PlatformConnectors } from '../platforms/platform-connectors';
import { PlatformRegistry } from '../platforms/platform-registry';
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
    // The CLI connects no channels and loads no platforms (their pacing needs the queues).
    @Optional() private readonly platforms?: PlatformRegistry,
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
    const account = await this.accounts.manager.transaction(async (m) => {
      const saved = await m.getRepository(Account).save(
        this.accounts.create({
          projectId,
          platform,
          externalId: connected.id,
          title: connected.title,
          username: connected.username,
          credentialsEncrypted: this.secrets.seal(connected.secret),
          limits: connected.limits ?? null,
          sessionEncrypted: connected.session ? this.secrets.seal(connected.session) : null,
          needsReconnect: false,
        }),
      );
      for (const found of connected.channels ?? []) await this.saveChannel(saved, found, m);
      return saved;
    });
    return this.view(account.id);
  }

  /** Replaces the credentials after the platform checked them, and clears needs_reconnect. */
  async updateCredentials(accountId: number, fields: ConnectFields): Promise<AccountResponseDto> {
    const account = await this.accounts.findOneByOrFail({ id: accountId });
    const connected = await this.connectors.get(account.platform).connect(fields);
    await this.accounts.manager.transaction(async (m) => {
      await m.getRepository(Account).update(
        { id: accountId },
        {
          externalId: connected.id,
          title: connected.title,
          username: connected.username,
          credentialsEncrypted: this.secrets.seal(connected.secret),
          limits: connected.limits ?? null,
          sessionEncrypted: connected.session ? this.secrets.seal(connected.session) : null,
          needsReconnect: false,
        },
      );
      // The channels that come with the account follow it: their names and links as they are now.
      for (const found of connected.channels ?? []) await this.saveChannel(account, found, m);
    });
    return this.view(accountId);
  }

  async remove(accountId: number): Promise<void> {
    await this.accounts.delete({ id: accountId });
  }

  /**
   * Adds a channel the account can post to, as its platform checked it: the channel as the list
   * shows it, with its link and limits.
   */
  async addChannel(accountId: number, fields: ConnectFields): Promise<ChannelListItemDto> {
    const account = await this.accounts.findOneByOrFail({ id: accountId });
    const found = await this.connectors
      .get(account.platform)
      .addChannel(this.secret(account), fields);
    const exists = await this.channels.existsBy({ accountId, channelId: found.id });
    if (exists) throw channelExists();
    let channel: ChannelRow;
    try {
      channel = await this.saveChannel(account, found, this.channels.manager);
    } catch (error) {
      if (isUniqueViolation(error)) throw channelExists();
      throw error;
    }
    if (!this.platforms) throw new Error('Adding a channel needs the registered platforms');
    return toChannelListItem(channel, this.platforms);
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
      channels.push(toChannelDto(await this.saveChannel(account, found, this.channels.manager)));
    }
    return { displayName: connector.displayName, account: await this.view(account.id), channels };
  }

  /**
   * Stores a channel of the account as its platform described it, in `m`'s transaction; a channel
   * the account has already takes the platform's names and link.
   */
  private async saveChannel(
    account: Account,
    found: PlatformIdentity,
    m: EntityManager,
  ): Promise<ChannelRow> {
    const [row] = (await m.query(
      `INSERT INTO channels (project_id, account_id, platform, channel_id, title, username, url)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (account_id, channel_id)
         DO UPDATE SET title = excluded.title, username = excluded.username, url = excluded.url
       RETURNING id, account_id, platform, channel_id, title, username, url`,
      [
        account.projectId,
        account.id,
        account.platform,
        found.id,
        found.title,
        found.username,
        found.url ?? null,
      ],
    )) as Omit<ChannelRow, 'needs_reconnect' | 'limits'>[];
    return { ...row, needs_reconnect: account.needsReconnect, limits: account.limits };
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

function channelExists(): AppError {
  return new AppError('channel_exists', 'This chat is already a channel of the account');
}

import { Injectable, Optional } from '@nestjs/common';
import type { ChannelRow } from '../channels/channels.repository';
import { toChannelDto, toChannelListItem } from '../channels/channels.service';
import { ChannelDto, ChannelListItemDto } from '../channels/channel.dto';
import { SecretsService } from '../../infrastructure/config/secrets.service';
import { formatTimestamp } from '../../infrastructure/database/timestamps';
import { isUniqueViolation } from '../../infrastructure/database/query-errors';
import { AppError } from '../../http/errors/error-codes';
import type { ConnectedAccount, ConnectFields, DemoAccount } from '../platforms/platform';
import { PlatformConnectors } from '../platforms/platform-connectors';
import { PlatformRegistry } from '../platforms/platform-registry';
import { Account } from './account.entity';
import {
  ACCOUNT_NOT_FOUND,
  type AccountCredentials,
  AccountsRepository,
} from './accounts.repository';
import { AccountResponseDto } from './account.dto';
import { tokenColumns } from './token-columns';

@Injectable()
export class AccountsService {
  constructor(
    private readonly repository: AccountsRepository,
    private readonly secrets: SecretsService,
    private readonly connectors: PlatformConnectors,
    // The CLI connects no channels and loads no platforms (their pacing needs the queues).
    @Optional() private readonly platforms?: PlatformRegistry,
  ) {}

  /** Each platform checks its own fields of the body; what it keeps is stored sealed. */
  async create(
    projectId: number,
    platform: Account['platform'],
    fields: ConnectFields,
  ): Promise<AccountResponseDto> {
    const connected = await this.connectWith(platform, fields);
    const account = await this.repository.createWithChannels(
      { projectId, platform, ...this.credentialsOf(connected) },
      connected.channels ?? [],
    );
    return this.view(projectId, account.id);
  }

  /** Through OAuth: the project's account of that identity is updated (and unflagged), or one made. */
  async connectIdentity(
    projectId: number,
    platform: Account['platform'],
    connected: ConnectedAccount,
  ): Promise<{ account: AccountResponseDto; created: boolean }> {
    const { id, created } = await this.repository.connectIdentity(
      { projectId, platform, ...this.credentialsOf(connected) },
      connected.channels ?? [],
    );
    return { account: await this.view(projectId, id), created };
  }

  /** Clears needs_reconnect. */
  async updateCredentials(
    projectId: number,
    accountId: number,
    fields: ConnectFields,
  ): Promise<AccountResponseDto> {
    const account = await this.find(projectId, accountId);
    const connected = await this.connectWith(account.platform, fields);
    // Another identity's credentials would send the old channels' posts as someone else.
    if (connected.id !== account.externalId) throw accountMismatch(account, connected);
    await this.repository.updateWithChannels(
      account,
      this.credentialsOf(connected),
      connected.channels ?? [],
    );
    return this.view(projectId, accountId);
  }

  async remove(projectId: number, accountId: number): Promise<void> {
    if (!(await this.repository.remove(projectId, accountId))) throw accountNotFound();
  }

  async addChannel(
    projectId: number,
    accountId: number,
    fields: ConnectFields,
  ): Promise<ChannelListItemDto> {
    const account = await this.find(projectId, accountId);
    const found = await this.connectors
      .get(account.platform)
      .addChannel(this.secret(account), fields);
    if (await this.repository.hasChannel(account, found.id)) throw channelExists();
    let channel: ChannelRow;
    try {
      channel = await this.repository.addChannel(account, found);
    } catch (error) {
      if (isUniqueViolation(error)) throw channelExists();
      throw error;
    }
    if (!this.platforms) throw new Error('Adding a channel needs the registered platforms');
    return toChannelListItem(channel, this.platforms);
  }

  private async find(projectId: number, accountId: number): Promise<Account> {
    const account = await this.repository.find(projectId, accountId);
    if (!account) throw accountNotFound();
    return account;
  }

  /** A platform whose accounts connect through OAuth only takes no credentials here. */
  private connectWith(platform: string, fields: ConnectFields): Promise<ConnectedAccount> {
    const connector = this.connectors.get(platform);
    if (!connector.connect)
      throw new AppError(
        'oauth_required',
        `${connector.displayName} accounts connect through OAuth: start a connection with POST /projects/{project_id}/connections`,
      );
    return connector.connect(fields);
  }

  private credentialsOf(connected: ConnectedAccount): Required<AccountCredentials> {
    return {
      externalId: connected.id,
      title: connected.title,
      username: connected.username,
      credentialsEncrypted: this.secrets.seal(connected.secret),
      limits: connected.limits ?? null,
      sessionEncrypted: connected.session ? this.secrets.seal(connected.session) : null,
      needsReconnect: false,
      ...tokenColumns(connected.terms),
    };
  }

  /** In clear for the moment of a call; never logged, never returned. */
  private secret(account: Account): string {
    if (account.credentialsEncrypted === null) throw accountNotFound();
    return this.secrets.open(account.credentialsEncrypted);
  }

  /** For `cli seed-demo` on machines with no internet: the first platform, not asked. */
  async createDemo(
    projectId: number,
  ): Promise<{ displayName: string; account: AccountResponseDto; channels: ChannelDto[] }> {
    const [connector] = this.connectors.all();
    const demo: DemoAccount = connector.demo();
    const account = await this.repository.insert({
      projectId,
      platform: connector.platform,
      externalId: demo.account.id,
      title: demo.account.title,
      username: demo.account.username,
      credentialsEncrypted: this.secrets.seal(demo.account.secret),
      needsReconnect: false,
    });
    const channels: ChannelDto[] = [];
    for (const found of demo.channels) {
      channels.push(toChannelDto(await this.repository.addChannel(account, found)));
    }
    return {
      displayName: connector.displayName,
      account: await this.view(projectId, account.id),
      channels,
    };
  }

  private async view(projectId: number, accountId: number): Promise<AccountResponseDto> {
    const account = await this.repository.get(projectId, accountId);
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

function accountNotFound(): AppError {
  return new AppError(ACCOUNT_NOT_FOUND.code, ACCOUNT_NOT_FOUND.message);
}

function accountMismatch(account: Account, connected: ConnectedAccount): AppError {
  const who = (name: string | null, title: string) => (name ? `@${name}` : title);
  return new AppError(
    'account_mismatch',
    `These credentials are of ${who(connected.username, connected.title)}, not of this account's ${who(account.username, account.title)}; connect them as a new account`,
  );
}

function channelExists(): AppError {
  return new AppError('channel_exists', 'This chat is already a channel of the account');
}

import { Injectable } from '@nestjs/common';
import { LooksUpProjectOf } from '../../access/project-lookups';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, IsNull, Repository } from 'typeorm';
import { Channel } from '../channels/channel.entity';
import type { ChannelRow } from '../channels/channels.repository';
import type { PlatformIdentity } from '../platforms/platform';
import { Account } from './account.entity';

/** What connecting or reconnecting stores of an account, credentials already sealed. */
export type AccountCredentials = Pick<
  Account,
  'externalId' | 'title' | 'username' | 'credentialsEncrypted' | 'needsReconnect'
> &
  Partial<Pick<Account, 'limits' | 'sessionEncrypted'>>;

/** A new account of a project. */
export type NewAccount = Pick<Account, 'projectId' | 'platform'> & AccountCredentials;

/** Connected accounts' rows and the channels that come with them, scoped by project. */
/** The answer for an account that does not exist or belongs to another project. */
export const ACCOUNT_NOT_FOUND = {
  code: 'account_not_found',
  message: 'Account not found',
} as const;

@Injectable()
@LooksUpProjectOf({ resource: 'account', notFound: ACCOUNT_NOT_FOUND })
export class AccountsRepository {
  constructor(
    @InjectRepository(Account) private readonly accounts: Repository<Account>,
    @InjectRepository(Channel) private readonly channels: Repository<Channel>,
  ) {}

  /**
   * The project an account belongs to, for access checks: not scoped by tenant by nature. A
   * removed account belongs to none: every route answers it as one that never existed.
   */
  async projectOf(accountId: number): Promise<number | null> {
    const row = await this.accounts.findOne({
      where: { id: accountId, removedAt: IsNull() },
      select: { projectId: true },
    });
    return row?.projectId ?? null;
  }

  /** The project's connected account, or null when it has none with this id (or it was removed). */
  find(projectId: number, accountId: number): Promise<Account | null> {
    return this.accounts.findOneBy({ id: accountId, projectId, removedAt: IsNull() });
  }

  /** The project's account, which must exist (it was just written). */
  get(projectId: number, accountId: number): Promise<Account> {
    return this.accounts.findOneByOrFail({ id: accountId, projectId });
  }

  /** Inserts the account and the channels its platform found, in one transaction. */
  createWithChannels(account: NewAccount, channels: PlatformIdentity[]): Promise<Account> {
    return this.accounts.manager.transaction(async (m) => {
      const saved = await m.getRepository(Account).save(this.accounts.create(account));
      for (const found of channels) await this.saveChannel(saved, found, m);
      return saved;
    });
  }

  /**
   * Replaces the account's credentials and refreshes the channels its platform found, in one
   * transaction.
   */
  async updateWithChannels(
    account: Account,
    credentials: AccountCredentials,
    channels: PlatformIdentity[],
  ): Promise<void> {
    await this.accounts.manager.transaction(async (m) => {
      await m
        .getRepository(Account)
        .update({ id: account.id, projectId: account.projectId }, credentials);
      for (const found of channels) await this.saveChannel(account, found, m);
    });
  }

  /**
   * Removes the project's account: its secrets are erased at once, and it stays with its channels
   * as disconnected rows, so that the posts that name them keep their history. False when the
   * project has no such connected account.
   */
  async remove(projectId: number, accountId: number): Promise<boolean> {
    const [, affected] = (await this.accounts.query(
      `UPDATE accounts
          SET removed_at = now(), credentials_encrypted = NULL, session_encrypted = NULL
        WHERE id = $1 AND project_id = $2 AND removed_at IS NULL`,
      [accountId, projectId],
    )) as [unknown, number];
    return affected > 0;
  }

  /** Inserts an account alone, outside any transaction (the demo seed). */
  insert(account: NewAccount): Promise<Account> {
    return this.accounts.save(this.accounts.create(account));
  }

  /** Whether the account has the channel already. */
  hasChannel(account: Account, channelId: string): Promise<boolean> {
    return this.channels.existsBy({
      projectId: account.projectId,
      accountId: account.id,
      channelId,
    });
  }

  /** Stores a channel of the account, outside any transaction. */
  addChannel(account: Account, found: PlatformIdentity): Promise<ChannelRow> {
    return this.saveChannel(account, found, this.accounts.manager);
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
       RETURNING id, account_id, platform, channel_id, title, username, url, missing_since`,
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
}

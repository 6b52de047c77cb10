import { Injectable } from '@nestjs/common';
import { LooksUpProjectOf } from '../../access/project-lookups';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, IsNull, Repository } from 'typeorm';
import { Channel } from '../channels/channel.entity';
import type { ChannelRow } from '../channels/channels.repository';
import type { PlatformIdentity } from '../platforms/platform';
import { Account } from './account.entity';
import { connectedEventOutbox } from '../webhooks/webhook-outbox';

/** Credentials already sealed. */
export type AccountCredentials = Pick<
  Account,
  'externalId' | 'title' | 'username' | 'credentialsEncrypted' | 'needsReconnect'
> &
  Partial<Pick<Account, 'limits' | 'sessionEncrypted' | TokenColumn>>;

/** What a connection sets of the token's terms (the renewal's own state starts afresh). */
export type TokenColumn =
  | 'tokenExpiresAt'
  | 'tokenObtainedAt'
  | 'tokenRenewable'
  | 'reconnectBy'
  | 'renewalFailures'
  | 'renewAfter';

export type NewAccount = Pick<Account, 'projectId' | 'platform'> & AccountCredentials;

/** Also the answer for an account of another project. */
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

  /** For access checks, not scoped by tenant; a removed account belongs to none. */
  async projectOf(accountId: number): Promise<number | null> {
    const row = await this.accounts.findOne({
      where: { id: accountId, removedAt: IsNull() },
      select: { projectId: true },
    });
    return row?.projectId ?? null;
  }

  /** Null when it has none with this id, or it was removed. */
  find(projectId: number, accountId: number): Promise<Account | null> {
    return this.accounts.findOneBy({ id: accountId, projectId, removedAt: IsNull() });
  }

  /** Must exist (it was just written). */
  get(projectId: number, accountId: number): Promise<Account> {
    return this.accounts.findOneByOrFail({ id: accountId, projectId });
  }

  createWithChannels(account: NewAccount, channels: PlatformIdentity[]): Promise<Account> {
    return this.accounts.manager.transaction(async (m) => {
      const saved = await m.getRepository(Account).save(this.accounts.create(account));
      for (const found of channels) await this.saveChannel(saved, found, m);
      return saved;
    });
  }

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

  /** The project's account of the same identity is updated, else one made; the event in the same transaction. */
  connectIdentity(
    account: NewAccount,
    channels: PlatformIdentity[],
  ): Promise<{ id: number; created: boolean }> {
    return this.accounts.manager.transaction(async (m) => {
      const accounts = m.getRepository(Account);
      const existing = await accounts.findOne({
        where: {
          projectId: account.projectId,
          platform: account.platform,
          externalId: account.externalId,
          removedAt: IsNull(),
        },
        order: { id: 'ASC' },
        lock: { mode: 'pessimistic_write' },
      });
      let saved: Account;
      if (existing) {
        await accounts.update({ id: existing.id }, { ...account, projectId: existing.projectId });
        saved = { ...existing, ...account };
      } else saved = await accounts.save(accounts.create(account));
      for (const found of channels) await this.saveChannel(saved, found, m);
      await m.query(
        `WITH changed AS (SELECT id, project_id, platform FROM accounts WHERE id = $1),
         ${connectedEventOutbox('changed')}
         SELECT 1`,
        [saved.id],
      );
      return { id: saved.id, created: !existing };
    });
  }

  /** Secrets erased at once; it stays with its channels, disconnected, so posts keep their history. */
  async remove(projectId: number, accountId: number): Promise<boolean> {
    const [, affected] = (await this.accounts.query(
      `UPDATE accounts
          SET removed_at = now(), credentials_encrypted = NULL, session_encrypted = NULL
        WHERE id = $1 AND project_id = $2 AND removed_at IS NULL`,
      [accountId, projectId],
    )) as [unknown, number];
    return affected > 0;
  }

  /** Outside any transaction (the demo seed). */
  insert(account: NewAccount): Promise<Account> {
    return this.accounts.save(this.accounts.create(account));
  }

  hasChannel(account: Account, channelId: string): Promise<boolean> {
    return this.channels.existsBy({
      projectId: account.projectId,
      accountId: account.id,
      channelId,
    });
  }

  addChannel(account: Account, found: PlatformIdentity): Promise<ChannelRow> {
    return this.saveChannel(account, found, this.accounts.manager);
  }

  /** A channel the account has already takes the platform's names and link. */
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
    )) as Omit<ChannelRow, 'needs_reconnect' | 'limits' | 'reconnect_by'>[];
    return {
      ...row,
      needs_reconnect: account.needsReconnect,
      limits: account.limits,
      reconnect_by: account.reconnectBy,
    };
  }
}

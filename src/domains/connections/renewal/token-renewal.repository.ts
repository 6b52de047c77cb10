import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { rowsOf, Statement } from '../../../infrastructure/database/prepared';
import { flagNeedsReconnect } from '../../accounts/account-flags';
import { tokenColumns } from '../../accounts/token-columns';
import type { RenewedCredentials } from '../../platforms/oauth-flow';

export interface DueAccount {
  id: number;
  platform: string;
  credentials_encrypted: string;
}

/** `gone`: removed or flagged; `busy`: skipping locked rows, another is renewing it now. */
export type LockedRenewal =
  | { outcome: 'renewed' | 'renewed_elsewhere'; sealed: string }
  | { outcome: 'gone' }
  | { outcome: 'busy' }
  | { outcome: 'refused' };

/** Not scoped by project: workers and the sweep renew the accounts they send from. */
@Injectable()
export class TokenRenewalRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Renewable accounts whose token expires within a day or a tenth of its life, soonest first. */
  due(limit: number): Promise<DueAccount[]> {
    return rowsOf<DueAccount>(this.db, TokenRenewalRepository.DUE, [limit]);
  }

  private static readonly DUE = new Statement(
    `SELECT id, platform, credentials_encrypted FROM accounts
      WHERE token_renewable AND removed_at IS NULL AND NOT needs_reconnect
        AND token_expires_at <= now() + interval '1 day'
        AND token_expires_at <= now() + least(interval '1 day',
              (token_expires_at - coalesce(token_obtained_at, token_expires_at)) / 10)
        AND (renew_after IS NULL OR renew_after <= now())
        AND credentials_encrypted IS NOT NULL
      ORDER BY token_expires_at
      LIMIT $1`,
  );

  /**
   * Holds the row while `renew` asks the platform; writes what it got before anyone uses it.
   * Credentials other than `seen` were renewed by another: used as they stand.
   */
  renewLocked(
    accountId: number,
    seen: string,
    skipLocked: boolean,
    renew: () => Promise<RenewedCredentials | 'refused'>,
    seal: (secret: string) => string,
  ): Promise<LockedRenewal> {
    return this.db.transaction(async (m) => {
      const [row] = (await m.query(
        `SELECT credentials_encrypted, needs_reconnect, removed_at IS NOT NULL AS removed
           FROM accounts WHERE id = $1 FOR UPDATE ${skipLocked ? 'SKIP LOCKED' : ''}`,
        [accountId],
      )) as { credentials_encrypted: string | null; needs_reconnect: boolean; removed: boolean }[];
      if (!row) return { outcome: skipLocked ? 'busy' : 'gone' };
      if (row.removed || row.needs_reconnect || row.credentials_encrypted === null)
        return { outcome: 'gone' };
      if (row.credentials_encrypted !== seen)
        return { outcome: 'renewed_elsewhere', sealed: row.credentials_encrypted };
      const renewed = await renew();
      if (renewed === 'refused') {
        await flagNeedsReconnect(m, accountId);
        return { outcome: 'refused' };
      }
      const sealed = seal(renewed.secret);
      const columns = tokenColumns(renewed.terms);
      await m.query(
        `UPDATE accounts
            SET credentials_encrypted = $2, token_expires_at = $3, token_obtained_at = $4,
                token_renewable = $5, reconnect_by = $6, renewal_failures = 0, renew_after = NULL
          WHERE id = $1`,
        [
          accountId,
          sealed,
          columns.tokenExpiresAt,
          columns.tokenObtainedAt,
          columns.tokenRenewable,
          columns.reconnectBy,
        ],
      );
      return { outcome: 'renewed', sealed };
    });
  }

  /** The sweep tries again after `backoffMs`, doubling up to `capMs`, or half the time left. */
  async failedForNow(accountId: number, backoffMs: number, capMs: number): Promise<void> {
    await this.db.query(
      `UPDATE accounts
          SET renewal_failures = renewal_failures + 1,
              renew_after = now() + least(
                least($3::float8, $2::float8 * 2 ^ renewal_failures) * interval '1 millisecond',
                greatest(interval '5 seconds', (token_expires_at - now()) / 2))
        WHERE id = $1`,
      [accountId, backoffMs, capMs],
    );
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/**
 * The sealed Bluesky session on an account's row. Not scoped by project: a worker reads and renews
 * the session of the account it is sending from, never on a caller's behalf.
 */
@Injectable()
export class BlueskySessionRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The account's sealed session, or null when it has none. */
  async read(accountId: number): Promise<string | null> {
    const [row] = (await this.db.query(`SELECT session_encrypted FROM accounts WHERE id = $1`, [
      accountId,
    ])) as { session_encrypted: string | null }[];
    return row?.session_encrypted ?? null;
  }

  /**
   * Holds the account's row while `replace` decides, from the sealed session stored now, what to
   * store instead (the same one to keep it), so renewals of one account take turns. Nothing is
   * written when `replace` throws.
   */
  async replaceLocked(
    accountId: number,
    replace: (stored: string | null) => Promise<string>,
  ): Promise<string> {
    return this.db.transaction(async (m) => {
      const [row] = (await m.query(
        `SELECT session_encrypted FROM accounts WHERE id = $1 FOR UPDATE`,
        [accountId],
      )) as { session_encrypted: string | null }[];
      const stored = row?.session_encrypted ?? null;
      const next = await replace(stored);
      if (next !== stored) {
        // A removed account's secrets stay erased, even by a renewal that was under way.
        await m.query(
          `UPDATE accounts SET session_encrypted = $2 WHERE id = $1 AND removed_at IS NULL`,
          [accountId, next],
        );
      }
      return next;
    });
  }
}

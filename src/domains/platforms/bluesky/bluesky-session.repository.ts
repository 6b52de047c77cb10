import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Not scoped by project: a worker renews the session of the account it sends from. */
@Injectable()
export class BlueskySessionRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async read(accountId: number): Promise<string | null> {
    const [row] = (await this.db.query(`SELECT session_encrypted FROM accounts WHERE id = $1`, [
      accountId,
    ])) as { session_encrypted: string | null }[];
    return row?.session_encrypted ?? null;
  }

  /** Holds the row while `replace` decides, so renewals take turns; writes nothing if it throws. */
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

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { execute, rowsOf, Statement } from '../database/prepared';

/** A key another request holds or has answered. */
export interface HeldKey {
  fingerprint: string | null;
  response_status: number | null;
  response_body: unknown;
}

/** The queries of idempotency_keys (D20); every one names the API key it is scoped to. */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Claims the key for a new request, in one atomic statement that holds across instances: a new
   * key, or one whose time is over, becomes this request's. False when another request holds it.
   */
  async claim(
    apiKeyId: number,
    key: string,
    fingerprint: string,
    ttlSeconds: number,
  ): Promise<boolean> {
    const { rowCount } = await execute(this.db, IdempotencyRepository.CLAIM, [
      apiKeyId,
      key,
      fingerprint,
      ttlSeconds,
    ]);
    return rowCount === 1;
  }

  // On the path of every keyed POST: named prepared statements (see database/prepared.ts).
  private static readonly CLAIM = new Statement(
    `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4))
     ON CONFLICT (api_key_id, key) DO UPDATE
        SET fingerprint = EXCLUDED.fingerprint, response_status = NULL, response_body = NULL,
            created_at = now(), expires_at = EXCLUDED.expires_at
      WHERE idempotency_keys.expires_at <= now()`,
  );

  /** The key as it stands, unless it is gone or its time is over. */
  async find(apiKeyId: number, key: string): Promise<HeldKey | null> {
    const [held] = await rowsOf<HeldKey>(this.db, IdempotencyRepository.FIND, [apiKeyId, key]);
    return held ?? null;
  }

  private static readonly FIND = new Statement(
    `SELECT fingerprint, response_status, response_body FROM idempotency_keys
      WHERE api_key_id = $1 AND key = $2 AND expires_at > now()`,
  );

  /** Keeps the answer of the request that holds the key. */
  async finish(
    apiKeyId: number,
    key: string,
    fingerprint: string,
    status: number,
    body: unknown,
  ): Promise<void> {
    await execute(this.db, IdempotencyRepository.FINISH, [
      apiKeyId,
      key,
      fingerprint,
      status,
      JSON.stringify(body ?? null),
    ]);
  }

  private static readonly FINISH = new Statement(
    `UPDATE idempotency_keys SET response_status = $4, response_body = $5::jsonb
      WHERE api_key_id = $1 AND key = $2 AND fingerprint = $3 AND response_status IS NULL`,
  );

  /** Frees a key whose request ended without an answer worth keeping (a 5xx). */
  async release(apiKeyId: number, key: string, fingerprint: string): Promise<void> {
    await this.db.query(
      `DELETE FROM idempotency_keys
        WHERE api_key_id = $1 AND key = $2 AND fingerprint = $3 AND response_status IS NULL`,
      [apiKeyId, key, fingerprint],
    );
  }

  /** Removes up to `batch` keys whose time is over; returns how many. */
  async purgeExpired(batch: number): Promise<number> {
    const [, deleted] = (await this.db.query(
      `DELETE FROM idempotency_keys WHERE ctid IN (
         SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT $1)`,
      [batch],
    )) as [unknown, number];
    return deleted;
  }
}

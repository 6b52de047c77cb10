import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { execute, rowsOf, Statement } from '../../infrastructure/database/prepared';
import { StatementBatcher } from '../../infrastructure/database/statement-batcher';

/** `synchronous_commit` off for this statement (docs/performance.md#idempotency-statements). */
const ASYNC_COMMIT = `(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

export interface HeldKey {
  fingerprint: string | null;
  response_status: number | null;
  response_body: unknown;
}

interface NewClaim {
  apiKeyId: number;
  key: string;
  fingerprint: string;
  ttlSeconds: number;
}

interface Answer {
  apiKeyId: number;
  key: string;
  fingerprint: string;
  status: number;
  body: string;
}

const MAX_BATCH = 64;

/** Every query names the API key it is scoped to. */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  // Two calls for one key never share a batch: the second then finds the key the first took.
  private readonly newClaims = new StatementBatcher<NewClaim, boolean>(
    (claims) => this.claimNewKeys(claims),
    { maxBatch: MAX_BATCH, key: (c) => `${c.apiKeyId}\n${c.key}` },
  );

  private readonly answers = new StatementBatcher<Answer, void>(
    (answers) => this.keepAnswers(answers),
    { maxBatch: MAX_BATCH, key: (a) => `${a.apiKeyId}\n${a.key}` },
  );

  /** True when the key is now this request's; false when it exists at all (then see `claim`). */
  claimNew(apiKeyId: number, key: string, fingerprint: string, ttlSeconds: number) {
    return this.newClaims.call({ apiKeyId, key, fingerprint, ttlSeconds });
  }

  private async claimNewKeys(claims: NewClaim[]): Promise<boolean[]> {
    // Inserted in key order, so that two instances' batches never wait on each other in a cycle.
    const sorted = [...claims].sort(
      (a, b) => a.apiKeyId - b.apiKeyId || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
    const rows = await rowsOf<{ api_key_id: number; key: string }>(
      this.db,
      IdempotencyRepository.CLAIM_NEW,
      [
        sorted.map((c) => c.apiKeyId),
        sorted.map((c) => c.key),
        sorted.map((c) => c.fingerprint),
        sorted.map((c) => c.ttlSeconds),
      ],
    );
    const claimed = new Set(rows.map((r) => `${r.api_key_id}\n${r.key}`));
    return claims.map((c) => claimed.has(`${c.apiKeyId}\n${c.key}`));
  }

  // Async commit is safe for a claim: the request's own synchronous commit flushes it in WAL order.
  private static readonly CLAIM_NEW = new Statement(
    `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, expires_at)
     SELECT u.api_key_id, u.key, u.fingerprint, now() + make_interval(secs => u.ttl)
       FROM unnest($1::int[], $2::varchar[], $3::varchar[], $4::float8[])
              WITH ORDINALITY AS u(api_key_id, key, fingerprint, ttl, ord),
            ${ASYNC_COMMIT}
      ORDER BY u.ord
     ON CONFLICT (api_key_id, key) DO NOTHING
     RETURNING api_key_id, key`,
  );

  /** Atomic across instances: a new or expired key becomes this request's, else false. */
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

  private static readonly CLAIM = new Statement(
    `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, expires_at)
     SELECT $1::int, $2::varchar, $3::varchar, now() + make_interval(secs => $4)
       FROM ${ASYNC_COMMIT}
     ON CONFLICT (api_key_id, key) DO UPDATE
        SET fingerprint = EXCLUDED.fingerprint, response_status = NULL, response_body = NULL,
            created_at = now(), expires_at = EXCLUDED.expires_at
      WHERE idempotency_keys.expires_at <= now()`,
  );

  /** Null when it is gone or its time is over. */
  async find(apiKeyId: number, key: string): Promise<HeldKey | null> {
    const [held] = await rowsOf<HeldKey>(this.db, IdempotencyRepository.FIND, [apiKeyId, key]);
    return held ?? null;
  }

  private static readonly FIND = new Statement(
    `SELECT fingerprint, response_status, response_body FROM idempotency_keys
      WHERE api_key_id = $1 AND key = $2 AND expires_at > now()`,
  );

  finish(
    apiKeyId: number,
    key: string,
    fingerprint: string,
    status: number,
    body: unknown,
  ): Promise<void> {
    return this.answers.call({
      apiKeyId,
      key,
      fingerprint,
      status,
      body: JSON.stringify(body ?? null),
    });
  }

  private async keepAnswers(answers: Answer[]): Promise<void[]> {
    await execute(this.db, IdempotencyRepository.FINISH, [
      answers.map((a) => a.apiKeyId),
      answers.map((a) => a.key),
      answers.map((a) => a.fingerprint),
      answers.map((a) => a.status),
      answers.map((a) => a.body),
    ]);
    return answers.map(() => undefined);
  }

  // Async commit too: a lost answer leaves the key in use (409) until it expires, never run twice.
  private static readonly FINISH = new Statement(
    `UPDATE idempotency_keys k SET response_status = u.status, response_body = u.body::jsonb
       FROM unnest($1::int[], $2::varchar[], $3::varchar[], $4::int[], $5::text[])
              AS u(api_key_id, key, fingerprint, status, body),
            ${ASYNC_COMMIT}
      WHERE k.api_key_id = u.api_key_id AND k.key = u.key AND k.fingerprint = u.fingerprint
        AND k.response_status IS NULL`,
  );

  /** For a request that ended without an answer worth keeping (a 5xx). */
  async release(apiKeyId: number, key: string, fingerprint: string): Promise<void> {
    await this.db.query(
      `DELETE FROM idempotency_keys
        WHERE api_key_id = $1 AND key = $2 AND fingerprint = $3 AND response_status IS NULL`,
      [apiKeyId, key, fingerprint],
    );
  }

  /** Returns how many were removed. */
  async purgeExpired(batch: number): Promise<number> {
    const [, deleted] = (await this.db.query(
      `DELETE FROM idempotency_keys WHERE ctid IN (
         SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT $1)`,
      [batch],
    )) as [unknown, number];
    return deleted;
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { execute, rowsOf, Statement } from '../../infrastructure/database/prepared';
import { StatementBatcher } from '../../infrastructure/database/statement-batcher';

/**
 * A one-row FROM item that turns off `synchronous_commit` for the rest of the transaction, which
 * outside a transaction block is the statement itself: its commit does not wait for the WAL flush.
 * Saves a keyed request most of a commit (docs/performance.md#idempotency-statements).
 */
const ASYNC_COMMIT = `(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

/** A key another request holds or has answered. */
export interface HeldKey {
  fingerprint: string | null;
  response_status: number | null;
  response_body: unknown;
}

/** A new key to claim for a request. */
interface NewClaim {
  apiKeyId: number;
  key: string;
  fingerprint: string;
  ttlSeconds: number;
}

/** An answer to keep for the request that holds its key. */
interface Answer {
  apiKeyId: number;
  key: string;
  fingerprint: string;
  status: number;
  body: string;
}

/** At most this many requests' claims or answers in one statement. */
const MAX_BATCH = 64;

/** The queries of idempotency_keys; every one names the API key it is scoped to. */
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

  /**
   * Claims a key nobody has used yet (the path of nearly every keyed request): true when it is
   * now this request's. False when the key exists, held, answered or expired (then see `claim`).
   * Claims made while one is in flight go together in the next statement.
   */
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

  // On the path of every keyed POST: named prepared statements (see database/prepared.ts), each
  // committed without waiting for its WAL flush (ASYNC_COMMIT). For a claim that is safe: the
  // WAL is written in order, so the commit of the request's own work (synchronous, as every other
  // statement of Herald's) flushes the claim with it; a crash before that loses the claim and no
  // work, and the retry runs anew. DO NOTHING locks no existing row: only inserts of the same key
  // by other batches are waited for.
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

  private static readonly CLAIM = new Statement(
    `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, expires_at)
     SELECT $1::int, $2::varchar, $3::varchar, now() + make_interval(secs => $4)
       FROM ${ASYNC_COMMIT}
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

  /**
   * Keeps the answer of the request that holds the key; answers kept while one is in flight go
   * together in the next statement (each row is held by one request, so two batches never wait on
   * each other).
   */
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

  // Without waiting for the WAL flush too: a crash of PostgreSQL within the WAL writer's delay
  // can lose the kept answer while the work, committed before, stays; the key then remains in use
  // (409) until it expires, as when keeping the answer fails: never run twice.
  private static readonly FINISH = new Statement(
    `UPDATE idempotency_keys k SET response_status = u.status, response_body = u.body::jsonb
       FROM unnest($1::int[], $2::varchar[], $3::varchar[], $4::int[], $5::text[])
              AS u(api_key_id, key, fingerprint, status, body),
            ${ASYNC_COMMIT}
      WHERE k.api_key_id = u.api_key_id AND k.key = u.key AND k.fingerprint = u.fingerprint
        AND k.response_status IS NULL`,
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

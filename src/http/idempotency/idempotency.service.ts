import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppError } from '../errors/error-codes';
import { IdempotencyRepository } from './idempotency.repository';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
const PURGE_INTERVAL_MS = 10 * 60 * 1000;
const PURGE_BATCH = 5_000;
/** Look-then-claim rounds when the holder keeps releasing the key in between. */
const MAX_CLAIM_ROUNDS = 3;

export type IdempotencyOutcome =
  { kind: 'run' } | { kind: 'replay'; status: number; body: unknown };

const KEY_SHAPE = /^[\x20-\x7e]{1,255}$/;

export function isValidIdempotencyKey(value: unknown): value is string {
  return typeof value === 'string' && KEY_SHAPE.test(value);
}

/** What "the same request" means: method, path and the body's own hash. */
export function requestFingerprint(method: string, path: string, bodySha256: string): string {
  return createHash('sha256').update(`${method}\n${path}\n${bodySha256}`).digest('hex');
}

export const EMPTY_BODY_SHA256 = createHash('sha256').digest('hex');

/** docs/api-rules.md#idempotency-keys: claimed atomically; 2xx/4xx replayed, 5xx frees the key. */
@Injectable()
export class IdempotencyService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(IdempotencyService.name);
  private purgeTimer?: NodeJS.Timeout;
  private purging?: Promise<number>;

  constructor(private readonly keys: IdempotencyRepository) {}

  onModuleInit(): void {
    this.purgeTimer = setInterval(() => void this.purgeInBackground(), PURGE_INTERVAL_MS);
    this.purgeTimer.unref();
  }

  /** A purge under way finishes while the pool is still open. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.purgeTimer);
    await this.purging;
  }

  private purgeInBackground(): Promise<number> {
    this.purging ??= this.purgeExpired().finally(() => (this.purging = undefined));
    return this.purging;
  }

  /** Else `replay`, 422 idempotency_key_reused, or 409 idempotency_key_in_use. */
  async begin(apiKeyId: number, key: string, fingerprint: string): Promise<IdempotencyOutcome> {
    if (await this.keys.claimNew(apiKeyId, key, fingerprint, IDEMPOTENCY_TTL_SECONDS))
      return { kind: 'run' };
    for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
      const held = await this.keys.find(apiKeyId, key);
      if (held) {
        if (held.fingerprint !== fingerprint)
          throw new AppError(
            'idempotency_key_reused',
            'This Idempotency-Key was used for a different request (method, path or body)',
          );
        if (held.response_status === null)
          throw new AppError(
            'idempotency_key_in_use',
            'A request with this Idempotency-Key is still being processed; retry later',
          );
        return { kind: 'replay', status: held.response_status, body: held.response_body };
      }
      if (await this.keys.claim(apiKeyId, key, fingerprint, IDEMPOTENCY_TTL_SECONDS))
        return { kind: 'run' };
    }
    throw new AppError(
      'idempotency_key_in_use',
      'A request with this Idempotency-Key is still being processed; retry later',
    );
  }

  finish(apiKeyId: number, key: string, fingerprint: string, status: number, body: unknown) {
    return this.keys.finish(apiKeyId, key, fingerprint, status, body);
  }

  release(apiKeyId: number, key: string, fingerprint: string) {
    return this.keys.release(apiKeyId, key, fingerprint);
  }

  async purgeExpired(): Promise<number> {
    let total = 0;
    try {
      for (;;) {
        const removed = await this.keys.purgeExpired(PURGE_BATCH);
        total += removed;
        if (removed < PURGE_BATCH) return total;
      }
    } catch (error) {
      this.logger.warn(`Expired idempotency keys not purged: ${(error as Error).message}`);
      return total;
    }
  }
}

import { Injectable, Optional } from '@nestjs/common';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { Metrics } from '../../infrastructure/metrics/metrics.service';
import { InvalidatedCache, CacheInvalidation } from '../../infrastructure/redis/cache-invalidation';
import type { ApiKeyMode } from './api-key-format';
import type { Scope } from '../../access/scopes';

/** What authenticating needs of a key and its user: one row of the lookup statement. */
export interface KeyRecord {
  id: number;
  public_id: string;
  secret_hash: string;
  scopes: Scope[];
  mode: ApiKeyMode;
  user_id: number;
  email: string;
  name: string;
  is_admin: boolean;
  is_operator: boolean;
  /** The key's `expires_at` in epoch milliseconds; null when it never expires. */
  expires_at_ms: number | null;
}

/** Keys held at most; past it the oldest entry makes room (a bound on memory, not an LRU). */
export const API_KEY_CACHE_MAX_ENTRIES = 10_000;

/**
 * Keys that authenticated recently in this process, so most public requests make one database
 * round trip (their own query) instead of two; correct as long as revocations are onMessage
 * (InvalidatedCache). An entry is also never used past the key's own expiry. Saves a round trip per
 * public request (docs/performance.md#api-key-cache).
 *
 * Processes without Redis (the CLI) or with `API_KEY_CACHE_MS=0` never remember keys.
 */
@Injectable()
export class ApiKeyCache {
  private readonly memory: InvalidatedCache<KeyRecord>;

  constructor(
    @InjectConfig() config: AppConfig,
    invalidation: CacheInvalidation,
    @Optional() metrics?: Metrics,
  ) {
    this.memory = new InvalidatedCache(invalidation, {
      channel: 'api-keys:revoked',
      owner: ApiKeyCache.name,
      ttlMs: config.apiKeyCacheMs,
      maxEntries: API_KEY_CACHE_MAX_ENTRIES,
      lookups: metrics && ((source) => metrics.apiKeyLookups(source)),
      onSubscribed: (now) => metrics?.apiKeyRevocationsHeard(now),
    });
  }

  /** The key's record if this process may trust its memory of it. */
  get(publicId: string): KeyRecord | undefined {
    return this.memory.get(publicId);
  }

  /** Taken before reading the database; `put` stores the row only if nothing was onMessage since. */
  version(): number {
    return this.memory.version();
  }

  put(version: number, record: KeyRecord): void {
    this.memory.put(version, record.public_id, record, record.expires_at_ms ?? Infinity);
  }

  /** After a revocation is stored: evicts here, then tells every other process. */
  revoked(keyId: number, publicId: string): Promise<void> {
    return this.memory.changed(publicId, `Revocation of API key ${keyId}`);
  }
}

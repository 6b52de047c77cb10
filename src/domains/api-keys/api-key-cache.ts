import { Injectable, Optional } from '@nestjs/common';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { Metrics } from '../../infrastructure/metrics/metrics.service';
import { InvalidatedCache, CacheInvalidation } from '../../infrastructure/redis/cache-invalidation';
import type { ApiKeyMode } from './api-key-format';
import type { Scope } from '../../access/scopes';

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
  /** Epoch ms; null when it never expires. */
  expires_at_ms: number | null;
}

export const API_KEY_CACHE_MAX_ENTRIES = 10_000;

/** Saves a round trip per public request (docs/performance.md#api-key-cache). */
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

  get(publicId: string): KeyRecord | undefined {
    return this.memory.get(publicId);
  }

  /** Taken before reading the database; `put` stores only if nothing was invalidated since. */
  version(): number {
    return this.memory.version();
  }

  put(version: number, record: KeyRecord): void {
    this.memory.put(version, record.public_id, record, record.expires_at_ms ?? Infinity);
  }

  /** Evicts here, then tells every other process. */
  revoked(keyId: number, publicId: string): Promise<void> {
    return this.memory.changed(publicId, `Revocation of API key ${keyId}`);
  }
}

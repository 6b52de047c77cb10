import { Inject, Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { Metrics } from '../metrics/metrics.service';
import { InjectRedis } from '../redis/redis.module';
import { withinTime } from '../redis/time-limit';
import type { ApiKeyMode } from './api-key-format';
import type { Scope } from './scopes';

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
  /** The key's `expires_at` in epoch milliseconds; null when it never expires. */
  expires_at_ms: number | null;
}

/** Keys held at most; past it the oldest entry makes room (a bound on memory, not an LRU). */
export const API_KEY_CACHE_MAX_ENTRIES = 10_000;
/** How long announcing a revocation waits for Redis. */
const ANNOUNCE_TIMEOUT_MS = 1_000;

interface Entry {
  record: KeyRecord;
  /** Epoch ms after which the entry is not used: the cache time, or the key's expiry if sooner. */
  until: number;
}

/**
 * Keys that authenticated recently in this process, so most public requests make one database
 * round trip (their own query) instead of two. Correctness rests on revocations being heard:
 *
 * - A revocation evicts the key here at once and is announced on a Redis channel that every
 *   process of the deployment listens to; each evicts the key when the message arrives.
 * - Nothing is served from memory while this process is not listening (not yet subscribed,
 *   Redis away): every lookup reads the database, as without a cache. Losing the subscription
 *   clears the cache, since announcements may have been missed meanwhile.
 * - A lookup that began before an announcement or a lost subscription is not stored: the row it
 *   read may predate the revocation (`generation`).
 * - An entry is used at most `apiKeyCacheMs` and never past the key's own expiry, which bounds a
 *   revocation whose announcement was lost (Redis refused the PUBLISH) or that was written to the
 *   database by hand.
 *
 * Processes without Redis (the CLI) or with `API_KEY_CACHE_MS=0` never cache.
 */
@Injectable()
export class ApiKeyCache implements OnApplicationShutdown {
  private readonly logger = new Logger(ApiKeyCache.name);
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly channel: string;
  private subscriber?: Redis;
  private listening = false;
  /** Bumped whenever an entry may have become false: an announcement, a subscription lost or won. */
  private generation = 0;
  private readonly fromMemory?: { inc(): void };
  private readonly fromDatabase?: { inc(): void };

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() @InjectRedis() private readonly redis?: Redis,
    @Optional() private readonly metrics?: Metrics,
  ) {
    this.ttlMs = redis ? config.apiKeyCacheMs : 0;
    this.channel = `${config.redisKeyPrefix}:api-keys:revoked`;
    this.fromMemory = metrics?.apiKeyLookups('memory');
    this.fromDatabase = metrics?.apiKeyLookups('database');
  }

  /** The key's record if this process may trust its memory of it; starts listening on first use. */
  get(publicId: string): KeyRecord | undefined {
    if (!this.listening) {
      if (this.ttlMs > 0 && !this.subscriber) this.listen();
      this.fromDatabase?.inc();
      return undefined;
    }
    const entry = this.entries.get(publicId);
    if (entry && entry.until > Date.now()) {
      this.fromMemory?.inc();
      return entry.record;
    }
    if (entry) this.entries.delete(publicId);
    this.fromDatabase?.inc();
    return undefined;
  }

  /** Taken before reading the database; `put` stores the row only if nothing was heard since. */
  ticket(): number {
    return this.generation;
  }

  put(ticket: number, record: KeyRecord): void {
    if (!this.listening || ticket !== this.generation) return;
    if (this.entries.size >= API_KEY_CACHE_MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    const until = Math.min(Date.now() + this.ttlMs, record.expires_at_ms ?? Infinity);
    this.entries.set(record.public_id, { record, until });
  }

  /**
   * After a revocation is stored: evicts here, then tells every other process. If Redis refuses,
   * they trust their memory of the key for at most `apiKeyCacheMs`, and the warning says so.
   */
  async revoked(keyId: number, publicId: string): Promise<void> {
    this.evict(publicId);
    if (!this.redis) return;
    try {
      await withinTime(this.redis.publish(this.channel, publicId), ANNOUNCE_TIMEOUT_MS);
    } catch (error) {
      this.logger.warn(
        `Revocation of API key ${keyId} not announced (${(error as Error).message}); ` +
          `other processes may accept it for up to ${this.ttlMs} ms`,
      );
    }
  }

  onApplicationShutdown(): void {
    this.subscriber?.disconnect();
  }

  private evict(publicId: string): void {
    this.generation++;
    this.entries.delete(publicId);
  }

  /**
   * Starting or stopping to hear revocations forgets every key: announcements may have been
   * missed while not listening, and a lookup under way may have read a row from before one.
   */
  private setListening(listening: boolean): void {
    this.listening = listening;
    this.generation++;
    this.entries.clear();
    this.metrics?.apiKeyRevocationsHeard(listening);
  }

  /** Subscribes now and after every reconnection; the cache is used only while subscribed. */
  private listen(): void {
    const subscriber = this.redis!.duplicate({
      // Subscribing again is ours to do, so that we know when it is done.
      autoResubscribe: false,
      enableAutoPipelining: false,
      connectionName: 'herald:api-key-revocations',
    });
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, publicId: string) => {
      if (channel === this.channel) this.evict(publicId);
    });
    subscriber.on('ready', () => {
      subscriber.subscribe(this.channel).then(
        () => {
          if (subscriber.status === 'ready') this.setListening(true);
        },
        (error: Error) => this.logger.warn(`Not listening for key revocations: ${error.message}`),
      );
    });
    subscriber.on('close', () => {
      if (this.listening) this.logger.warn('Stopped listening for key revocations: Redis away');
      this.setListening(false);
    });
    // ioredis reconnects by itself; its errors are the 'close' above.
    subscriber.on('error', () => undefined);
  }
}

import {
  Global,
  Injectable,
  Logger,
  Module,
  OnApplicationShutdown,
  Optional,
} from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { InjectRedis } from './redis.module';
import { withinTime } from './time-limit';

/** How long publishing an invalidation waits for Redis. */
const ANNOUNCE_TIMEOUT_MS = 1_000;

/** What a process's cache of some rows does with the messages on its channel. */
export interface InvalidationListener {
  /** A message on the channel: what it names may have changed in the database. */
  onMessage(message: string): void;
  /** Subscribed or not any more: messages may have been missed meanwhile. */
  onSubscribed(now: boolean): void;
}

/**
 * Cache invalidation over Redis pub/sub, for what processes cache of the database
 * (api-key-cache.ts, project-access-cache.ts): a change is stored, then published on its channel,
 * and each process evicts what the message names as soon as it arrives. One subscriber
 * connection per process, opened when a memory is first used (a process that never reads one,
 * a worker, never subscribes), for every channel registered by then. Without Redis (the CLI)
 * nothing is received and nothing published.
 */
@Injectable()
export class CacheInvalidation implements OnApplicationShutdown {
  private readonly logger = new Logger(CacheInvalidation.name);
  private readonly listeners = new Map<string, InvalidationListener>();
  private subscriber?: Redis;
  private subscribed = false;

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    @Optional() @InjectRedis() private readonly redis?: Redis,
  ) {}

  /** Whether this process can receive and publish invalidations at all. */
  get available(): boolean {
    return this.redis !== undefined;
  }

  /** Registers a channel (named under the deployment's key prefix), before the first `listen`. */
  channel(name: string, listener: InvalidationListener): string {
    if (this.subscriber) throw new Error(`Channel ${name} registered after subscribing`);
    const channel = `${this.config.redisKeyPrefix}:${name}`;
    this.listeners.set(channel, listener);
    return channel;
  }

  /** Whether every registered channel is subscribed right now; the first call starts subscribing. */
  listen(): boolean {
    if (!this.subscriber && this.redis) this.subscribe(this.redis);
    return this.subscribed;
  }

  /** Rejects when Redis refuses or does not answer in time: the caller says what that means. */
  async publish(channel: string, message: string): Promise<void> {
    if (!this.redis) throw new Error('no Redis to publish on');
    await withinTime(this.redis.publish(channel, message), ANNOUNCE_TIMEOUT_MS);
  }

  onApplicationShutdown(): void {
    this.subscriber?.disconnect();
  }

  private setSubscribed(subscribed: boolean): void {
    this.subscribed = subscribed;
    for (const listener of this.listeners.values()) listener.onSubscribed(subscribed);
  }

  /** Subscribes now and after every reconnection; messages count only while subscribed. */
  private subscribe(redis: Redis): void {
    const subscriber = redis.duplicate({
      // Subscribing again is ours to do, so that we know when it is done.
      autoResubscribe: false,
      enableAutoPipelining: false,
      connectionName: 'herald:invalidation',
    });
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, message: string) => {
      this.listeners.get(channel)?.onMessage(message);
    });
    subscriber.on('ready', () => {
      subscriber.subscribe(...this.listeners.keys()).then(
        () => {
          if (subscriber.status === 'ready') this.setSubscribed(true);
        },
        (error: Error) =>
          this.logger.warn(`Not subscribed to cache invalidations: ${error.message}`),
      );
    });
    subscriber.on('close', () => {
      if (this.subscribed) this.logger.warn('Unsubscribed from cache invalidations: Redis away');
      this.setSubscribed(false);
    });
    // ioredis reconnects by itself; its errors are the 'close' above.
    subscriber.on('error', () => undefined);
  }
}

export interface InvalidatedCacheOptions {
  /** The channel's name under the deployment's key prefix. */
  channel: string;
  /** The context of its warnings (the memory's owner). */
  owner: string;
  /** How long an entry is used at most; 0: nothing is remembered. */
  ttlMs: number;
  /** Entries held at most; past it the oldest makes room (a bound on memory, not an LRU). */
  maxEntries: number;
  /** Whether a message names an entry's key; by default the message is the key. */
  names?: (message: string, key: string) => boolean;
  /** Counted at every `get`, by where the value came from (a metric's counters). */
  lookups?: (source: 'memory' | 'database') => { inc(): void };
  /** Told when the subscription starts or stops (for a gauge). */
  onSubscribed?: (now: boolean) => void;
}

/**
 * Rows a process read from the database and may use again without reading them, for as long as
 * it receives the invalidations of their changes:
 *
 * - A change evicts what it names here at once and is published; every other process evicts it
 *   when the message arrives.
 * - Nothing is served from memory while not subscribed (not yet, or Redis away): every
 *   lookup reads the database, as without a cache. A subscription lost or won clears everything,
 *   since invalidations may have been missed meanwhile.
 * - A row read before an invalidation or a change of subscription is not stored: it may predate the
 *   change (`version`).
 * - An entry is used at most `ttlMs`, which bounds a change whose invalidation was lost (Redis
 *   refused the PUBLISH) or that was written to the database by hand.
 */
export class InvalidatedCache<V> {
  private readonly logger: Logger;
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly channel: string;
  /** Bumped whenever an entry may have become false: an invalidation, a subscription lost or won. */
  private generation = 0;
  private readonly fromMemory?: { inc(): void };
  private readonly fromDatabase?: { inc(): void };

  constructor(
    private readonly invalidation: CacheInvalidation,
    private readonly options: InvalidatedCacheOptions,
  ) {
    this.logger = new Logger(options.owner);
    this.fromMemory = options.lookups?.('memory');
    this.fromDatabase = options.lookups?.('database');
    this.channel = invalidation.channel(options.channel, {
      onMessage: (message) => this.forget(message),
      onSubscribed: (now) => {
        this.generation++;
        this.entries.clear();
        options.onSubscribed?.(now);
      },
    });
  }

  /** How long an entry is used at most; 0 when this process remembers nothing. */
  get ttlMs(): number {
    return this.invalidation.available ? this.options.ttlMs : 0;
  }

  /** The cached value if it may be trusted now; the first call starts subscribing. */
  get(key: string): V | undefined {
    if (this.ttlMs === 0 || !this.invalidation.listen()) {
      this.fromDatabase?.inc();
      return undefined;
    }
    const entry = this.entries.get(key);
    if (entry && entry.until > Date.now()) {
      this.fromMemory?.inc();
      return entry.value;
    }
    if (entry) this.entries.delete(key);
    this.fromDatabase?.inc();
    return undefined;
  }

  /** Taken before reading the database; `put` stores the row only if nothing was invalidated since. */
  version(): number {
    return this.generation;
  }

  /** Remembers a value read after `version()`, for `ttlMs` and never past `until` (epoch ms). */
  put(version: number, key: string, value: V, until = Infinity): void {
    if (this.ttlMs === 0 || !this.invalidation.listen() || version !== this.generation) return;
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, until: Math.min(Date.now() + this.ttlMs, until) });
  }

  /**
   * After a change is stored: forgets here what `message` names, then tells every other process.
   * If Redis refuses, they trust their memory of it for at most `ttlMs`, and the warning about
   * `what` (e.g. "Revocation of API key 7") says so; the change itself stands.
   */
  async changed(message: string, what: string): Promise<void> {
    this.forget(message);
    if (!this.invalidation.available) return;
    try {
      await this.invalidation.publish(this.channel, message);
    } catch (error) {
      this.logger.warn(
        `${what} not published (${(error as Error).message}); ` +
          `other processes may use what they remember of it for up to ${this.ttlMs} ms`,
      );
    }
  }

  private forget(message: string): void {
    this.generation++;
    const names = this.options.names;
    if (!names) {
      this.entries.delete(message);
      return;
    }
    for (const key of this.entries.keys()) if (names(message, key)) this.entries.delete(key);
  }
}

/** Global: both the application and the CLI (without Redis) get the one instance. */
@Global()
@Module({ providers: [CacheInvalidation], exports: [CacheInvalidation] })
export class CacheInvalidationModule {}

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

const ANNOUNCE_TIMEOUT_MS = 1_000;

export interface InvalidationListener {
  /** What the message names may have changed in the database. */
  onMessage(message: string): void;
  /** Messages may have been missed meanwhile. */
  onSubscribed(now: boolean): void;
}

/** Pub/sub invalidation of processes' caches; one subscriber per process, on first use. */
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

  get available(): boolean {
    return this.redis !== undefined;
  }

  /** Before the first `listen`. */
  channel(name: string, listener: InvalidationListener): string {
    if (this.subscriber) throw new Error(`Channel ${name} registered after subscribing`);
    const channel = `${this.config.redisKeyPrefix}:${name}`;
    this.listeners.set(channel, listener);
    return channel;
  }

  /** The first call starts subscribing. */
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

  /** Messages count only while subscribed. */
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
    subscriber.on('error', () => undefined);
  }
}

export interface InvalidatedCacheOptions {
  channel: string;
  owner: string;
  /** 0: nothing is remembered. */
  ttlMs: number;
  /** Past it the oldest makes room (a bound on memory, not an LRU). */
  maxEntries: number;
  /** By default the message is the key. */
  names?: (message: string, key: string) => boolean;
  lookups?: (source: 'memory' | 'database') => { inc(): void };
  onSubscribed?: (now: boolean) => void;
}

/** Used only while subscribed; rows read across an invalidation are not kept; `ttlMs` caps. */
export class InvalidatedCache<V> {
  private readonly logger: Logger;
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly channel: string;
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

  get ttlMs(): number {
    return this.invalidation.available ? this.options.ttlMs : 0;
  }

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

  /** Taken before reading the database; `put` stores only if nothing was invalidated since. */
  version(): number {
    return this.generation;
  }

  /** For `ttlMs` and never past `until` (epoch ms). */
  put(version: number, key: string, value: V, until = Infinity): void {
    if (this.ttlMs === 0 || !this.invalidation.listen() || version !== this.generation) return;
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, until: Math.min(Date.now() + this.ttlMs, until) });
  }

  /** If Redis refuses, others trust their memory for at most `ttlMs`; the change stands. */
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

/** Global: the application and the CLI (without Redis) share one instance. */
@Global()
@Module({ providers: [CacheInvalidation], exports: [CacheInvalidation] })
export class CacheInvalidationModule {}

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

/** How long announcing a change waits for Redis. */
const ANNOUNCE_TIMEOUT_MS = 1_000;

/** What a process's memory of some rows does with the announcements on its channel. */
export interface AnnouncementListener {
  /** A message on the channel: what it names may have changed in the database. */
  heard(message: string): void;
  /** Started or stopped hearing: announcements may have been missed while not hearing. */
  hearing(now: boolean): void;
}

/**
 * Changes every process of the deployment hears, for what processes remember of the database
 * (api-key-cache.ts, project-access-cache.ts): a change is stored, then announced on its channel,
 * and each process forgets what the message names as soon as it arrives. One subscriber
 * connection per process, opened when a memory is first used (a process that never reads one,
 * a worker, never subscribes), for every channel registered by then. Without Redis (the CLI)
 * nothing is heard and nothing announced.
 */
@Injectable()
export class Announcements implements OnApplicationShutdown {
  private readonly logger = new Logger(Announcements.name);
  private readonly listeners = new Map<string, AnnouncementListener>();
  private subscriber?: Redis;
  private subscribed = false;

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    @Optional() @InjectRedis() private readonly redis?: Redis,
  ) {}

  /** Whether this process can hear and make announcements at all. */
  get available(): boolean {
    return this.redis !== undefined;
  }

  /** Registers a channel (named under the deployment's key prefix), before the first `listen`. */
  channel(name: string, listener: AnnouncementListener): string {
    if (this.subscriber) throw new Error(`Channel ${name} registered after subscribing`);
    const channel = `${this.config.redisKeyPrefix}:${name}`;
    this.listeners.set(channel, listener);
    return channel;
  }

  /** Whether every registered channel is heard right now; the first call starts subscribing. */
  listen(): boolean {
    if (!this.subscriber && this.redis) this.subscribe(this.redis);
    return this.subscribed;
  }

  /** Rejects when Redis refuses or does not answer in time: the caller says what that means. */
  async announce(channel: string, message: string): Promise<void> {
    if (!this.redis) throw new Error('no Redis to announce on');
    await withinTime(this.redis.publish(channel, message), ANNOUNCE_TIMEOUT_MS);
  }

  onApplicationShutdown(): void {
    this.subscriber?.disconnect();
  }

  private setSubscribed(subscribed: boolean): void {
    this.subscribed = subscribed;
    for (const listener of this.listeners.values()) listener.hearing(subscribed);
  }

  /** Subscribes now and after every reconnection; heard only while subscribed. */
  private subscribe(redis: Redis): void {
    const subscriber = redis.duplicate({
      // Subscribing again is ours to do, so that we know when it is done.
      autoResubscribe: false,
      enableAutoPipelining: false,
      connectionName: 'herald:announcements',
    });
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, message: string) => {
      this.listeners.get(channel)?.heard(message);
    });
    subscriber.on('ready', () => {
      subscriber.subscribe(...this.listeners.keys()).then(
        () => {
          if (subscriber.status === 'ready') this.setSubscribed(true);
        },
        (error: Error) => this.logger.warn(`Not hearing announcements: ${error.message}`),
      );
    });
    subscriber.on('close', () => {
      if (this.subscribed) this.logger.warn('Stopped hearing announcements: Redis away');
      this.setSubscribed(false);
    });
    // ioredis reconnects by itself; its errors are the 'close' above.
    subscriber.on('error', () => undefined);
  }
}

export interface AnnouncedMemoryOptions {
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
  /** Told when hearing starts or stops (for a gauge). */
  onHearing?: (now: boolean) => void;
}

/**
 * Rows a process read from the database and may use again without reading them, for as long as
 * it hears the announcements of their changes:
 *
 * - A change evicts what it names here at once and is announced; every other process evicts it
 *   when the message arrives.
 * - Nothing is served from memory while not hearing (not yet subscribed, Redis away): every
 *   lookup reads the database, as without memory. Hearing stopped or started forgets everything,
 *   since announcements may have been missed meanwhile.
 * - A row read before an announcement or a change in hearing is not stored: it may predate the
 *   change (`ticket`).
 * - An entry is used at most `ttlMs`, which bounds a change whose announcement was lost (Redis
 *   refused the PUBLISH) or that was written to the database by hand.
 */
export class AnnouncedMemory<V> {
  private readonly logger: Logger;
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly channel: string;
  /** Bumped whenever an entry may have become false: an announcement, hearing lost or won. */
  private generation = 0;
  private readonly fromMemory?: { inc(): void };
  private readonly fromDatabase?: { inc(): void };

  constructor(
    private readonly announcements: Announcements,
    private readonly options: AnnouncedMemoryOptions,
  ) {
    this.logger = new Logger(options.owner);
    this.fromMemory = options.lookups?.('memory');
    this.fromDatabase = options.lookups?.('database');
    this.channel = announcements.channel(options.channel, {
      heard: (message) => this.forget(message),
      hearing: (now) => {
        this.generation++;
        this.entries.clear();
        options.onHearing?.(now);
      },
    });
  }

  /** How long an entry is used at most; 0 when this process remembers nothing. */
  get ttlMs(): number {
    return this.announcements.available ? this.options.ttlMs : 0;
  }

  /** The remembered value if it may be trusted now; the first call starts hearing. */
  get(key: string): V | undefined {
    if (this.ttlMs === 0 || !this.announcements.listen()) {
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

  /** Taken before reading the database; `put` stores the row only if nothing was heard since. */
  ticket(): number {
    return this.generation;
  }

  /** Remembers a value read after `ticket()`, for `ttlMs` and never past `until` (epoch ms). */
  put(ticket: number, key: string, value: V, until = Infinity): void {
    if (this.ttlMs === 0 || !this.announcements.listen() || ticket !== this.generation) return;
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
    if (!this.announcements.available) return;
    try {
      await this.announcements.announce(this.channel, message);
    } catch (error) {
      this.logger.warn(
        `${what} not announced (${(error as Error).message}); ` +
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
@Module({ providers: [Announcements], exports: [Announcements] })
export class AnnouncementsModule {}

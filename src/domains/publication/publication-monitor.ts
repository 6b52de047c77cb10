import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
import { Metrics } from '../../infrastructure/metrics/metrics.service';
import { InjectRedis } from '../../infrastructure/redis/redis.module';
import { withinTime } from '../../infrastructure/redis/time-limit';

export const HEARTBEAT_INTERVAL_MS = 5_000;
/** A worker that has not said it is alive for this long counts as gone. */
export const HEARTBEAT_TTL_MS = 3 * HEARTBEAT_INTERVAL_MS;
/** A due post unclaimed this long while no worker is alive: the pipeline has stalled. */
export const STALL_AFTER_SECONDS = 60;
const READ_TIMEOUT_MS = 1_500;

/** The oldest post that is due and that no worker has taken yet. */
export interface UnclaimedPost {
  postId: number;
  waitedSeconds: number;
}

/**
 * Due and unclaimed: queued, scheduled past its time, or publishing an attempt no worker has
 * claimed (POST publish), waiting since it became due.
 */
const OLDEST_UNCLAIMED = new Statement(
  `SELECT id AS "postId", extract(epoch FROM now() - since)::float8 AS "waitedSeconds"
     FROM (SELECT id, CASE WHEN status = 'scheduled' THEN scheduled_at ELSE updated_at END AS since
             FROM posts
            WHERE status = 'queued'
               OR (status = 'scheduled' AND scheduled_at <= now())
               OR (status = 'publishing' AND claimed_attempt IS DISTINCT FROM publish_attempt)) due
    ORDER BY since LIMIT 1`,
);

/**
 * Whether the pipeline moves: each worker process writes a heartbeat to Redis, and any role reads
 * how many are alive and how long the oldest due post has waited for one (docs/api-rules.md#operations).
 */
@Injectable()
export class PublicationMonitor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PublicationMonitor.name);
  private readonly workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly key: string;
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRedis() private readonly redis: Redis,
    @InjectConfig() private readonly config: AppConfig,
    metrics: Metrics,
  ) {
    this.key = `${config.redisKeyPrefix}:publication-workers`;
    const logger = this.logger;
    const measured = (what: string, read: () => Promise<number>) =>
      async function collect(this: Gauge) {
        try {
          this.set(await read());
        } catch (error) {
          // Left out of this scrape rather than a false zero.
          this.reset();
          logger.warn(`${what} not measured: ${(error as Error).message}`);
        }
      };
    new Gauge({
      name: 'herald_publication_oldest_unclaimed_seconds',
      help: 'How long the oldest due post has waited for a worker to take it (0 when none waits)',
      registers: [metrics.registry],
      collect: measured(
        'The oldest unclaimed post',
        async () => (await this.oldestUnclaimed())?.waitedSeconds ?? 0,
      ),
    });
    new Gauge({
      name: 'herald_publication_live_workers',
      help: 'Worker processes whose heartbeat is recent',
      registers: [metrics.registry],
      collect: measured('Live workers', () => this.liveWorkers()),
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.appRole === 'api') return;
    void this.beat();
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_INTERVAL_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    // A worker that stops says so; one that dies is gone once its heartbeat is too old.
    await withinTime(this.redis.zrem(this.key, this.workerId), READ_TIMEOUT_MS).catch(
      () => undefined,
    );
  }

  /** Worker processes whose last heartbeat is within HEARTBEAT_TTL_MS. */
  async liveWorkers(): Promise<number> {
    const since = Date.now() - HEARTBEAT_TTL_MS;
    return withinTime(this.redis.zcount(this.key, since, '+inf'), READ_TIMEOUT_MS);
  }

  async oldestUnclaimed(): Promise<UnclaimedPost | null> {
    const [row] = await withinTime(
      rowsOf<UnclaimedPost>(this.db, OLDEST_UNCLAIMED, []),
      READ_TIMEOUT_MS,
      () => new Error('PostgreSQL did not answer in time'),
    );
    return row ?? null;
  }

  private async beat(): Promise<void> {
    const now = Date.now();
    try {
      await this.redis
        .multi()
        .zadd(this.key, now, this.workerId)
        .zremrangebyscore(this.key, '-inf', now - HEARTBEAT_TTL_MS)
        .exec();
    } catch (error) {
      this.logger.warn(`Heartbeat not written: ${(error as Error).message}`);
    }
  }
}

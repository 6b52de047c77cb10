import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type Redis from 'ioredis';
import { AppError } from '../../http/errors/error-codes';
import { RedisScript } from '../redis/redis-script';
import { withinTime } from '../redis/time-limit';

/**
 * A fixed window per key, in one atomic round-trip. The first hit starts the window: it stores the
 * window's end (epoch ms on Redis's clock) beside the count and makes the key expire then. Every
 * hit counts; the reply is { hits, ms left, window end }, the same end for every instance and every
 * request of the window. Being one script, it is exact under concurrency.
 */
export const FIXED_WINDOW_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local hits = redis.call('HINCRBY', KEYS[1], 'hits', 1)
local ends = tonumber(redis.call('HGET', KEYS[1], 'ends'))
if ends == nil or ends <= now then
  if hits ~= 1 then
    redis.call('HSET', KEYS[1], 'hits', 1)
    hits = 1
  end
  ends = now + tonumber(ARGV[1])
  redis.call('HSET', KEYS[1], 'ends', string.format('%d', ends))
  redis.call('PEXPIREAT', KEYS[1], string.format('%d', ends))
end
return { hits, ends - now, ends }
`;

const FIXED_WINDOW = new RedisScript(FIXED_WINDOW_SCRIPT, 1);

/** Takes one hit back from a window that is still open; a window that ended stays ended. */
const REFUND = new RedisScript(
  `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HINCRBY', KEYS[1], 'hits', -1) end
   return 0`,
  1,
);

/** A Redis that does not answer within this time counts as unreachable. */
export const RATE_LIMIT_REDIS_TIMEOUT_MS = 1_000;
/** At most one warning about an unreachable Redis in this period. */
export const OUTAGE_LOG_INTERVAL_MS = 30_000;

/** What @nestjs/throttler expects back from a storage (its record type is not exported). */
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

export interface RateLimitRecord extends ThrottlerStorageRecord {
  /** Unix epoch milliseconds at which the window ends (Redis's clock). */
  resetAtMs: number;
  /** Milliseconds left in the window. */
  msToReset: number;
}

/**
 * Whole seconds until a window ends, at least 1: `Retry-After` and the throttler's `timeToExpire`.
 */
export function retryAfterSeconds(msToReset: number): number {
  return Math.max(1, Math.ceil(msToReset / 1000));
}

/** Redis did not answer: callers decide what that means (the public API fails open). */
export class RateLimitStoreUnavailable extends Error {}

/** The refusal of every request limit: 429 `rate_limit_exceeded` with `Retry-After`. */
export function rateLimitExceeded(message: string, msToReset: number): AppError {
  return new AppError('rate_limit_exceeded', message, undefined, {
    'Retry-After': String(retryAfterSeconds(msToReset)),
  });
}

/**
 * `ThrottlerStorage` for @nestjs/throttler on the shared ioredis client. Unlike the throttler's
 * default, a refused request is blocked only until its window ends (fixed windows), so the
 * `blockDuration` argument is not used.
 */
export class RedisRateLimitStorage implements ThrottlerStorage {
  private readonly logger = new Logger('RateLimit');
  private lastOutageLog = 0;
  private suppressedOutages = 0;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {
    // Connection errors would otherwise go to stderr on every reconnect attempt.
    redis.on('error', (error: Error) => this.noteOutage(error));
  }

  /** `key` is prefixed with the deployment's Redis key prefix; `ttl` is the window in ms. */
  async increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration?: number,
    _throttlerName?: string,
  ): Promise<RateLimitRecord> {
    const reply = await this.evaluate(`${this.keyPrefix}:ratelimit:${key}`, ttl);
    const [hits, msToReset, resetAtMs] = reply;
    const isBlocked = hits > limit;
    const timeToExpire = retryAfterSeconds(msToReset);
    return {
      totalHits: hits,
      timeToExpire,
      isBlocked,
      timeToBlockExpire: isBlocked ? timeToExpire : 0,
      resetAtMs,
      msToReset,
    };
  }

  /**
   * `increment`, or null while Redis is unreachable: Herald's own limits then let the request
   * through (README, rate limits), the outage logged by `noteOutage`.
   */
  async countOrPass(key: string, ttl: number, limit: number): Promise<RateLimitRecord | null> {
    try {
      return await this.increment(key, ttl, limit);
    } catch (error) {
      if (error instanceof RateLimitStoreUnavailable) return null;
      throw error;
    }
  }

  /**
   * Takes back one hit of `increment` (a counted attempt that turned out not to count); while
   * Redis is unreachable the hit stays, as nothing was counted against it either.
   */
  async refund(key: string): Promise<void> {
    try {
      await withinTime(
        REFUND.run(this.redis, [`${this.keyPrefix}:ratelimit:${key}`]),
        RATE_LIMIT_REDIS_TIMEOUT_MS,
      );
    } catch (error) {
      this.noteOutage(error as Error);
    }
  }

  private async evaluate(key: string, windowMs: number): Promise<number[]> {
    if (this.redis.status !== 'ready') {
      throw this.noteOutage(new Error(`Redis connection is ${this.redis.status}`));
    }
    try {
      const reply = await withinTime(
        FIXED_WINDOW.run(this.redis, [key, windowMs]),
        RATE_LIMIT_REDIS_TIMEOUT_MS,
      );
      if (!Array.isArray(reply) || reply.length !== 3 || reply.some((n) => typeof n !== 'number')) {
        throw new Error(`Unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
      }
      return reply as number[];
    } catch (error) {
      throw this.noteOutage(error as Error);
    }
  }

  /** Logs an outage at most once per interval, with how many went unlogged. */
  private noteOutage(error: Error): RateLimitStoreUnavailable {
    const now = Date.now();
    if (now - this.lastOutageLog >= OUTAGE_LOG_INTERVAL_MS) {
      const more = this.suppressedOutages > 0 ? ` (${this.suppressedOutages} more since last)` : '';
      this.logger.warn(
        `Rate limits are not enforced: Redis is unreachable: ${error.message}${more}`,
      );
      this.lastOutageLog = now;
      this.suppressedOutages = 0;
    } else {
      this.suppressedOutages += 1;
    }
    return new RateLimitStoreUnavailable(error.message);
  }
}

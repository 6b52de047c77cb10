import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type Redis from 'ioredis';
import { AppError } from '../../http/errors/error-codes';
import { RedisScript } from '../redis/redis-script';
import { withinTime } from '../redis/time-limit';

/** Atomic fixed window on Redis's clock; replies { hits, ms left, window end }. */
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

/** A window that ended stays ended. */
const REFUND = new RedisScript(
  `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HINCRBY', KEYS[1], 'hits', -1) end
   return 0`,
  1,
);

export const RATE_LIMIT_REDIS_TIMEOUT_MS = 1_000;
export const OUTAGE_LOG_INTERVAL_MS = 30_000;

/** @nestjs/throttler does not export its record type. */
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

export interface RateLimitRecord extends ThrottlerStorageRecord {
  /** Epoch ms on Redis's clock. */
  resetAtMs: number;
  msToReset: number;
}

/** At least 1. */
export function retryAfterSeconds(msToReset: number): number {
  return Math.max(1, Math.ceil(msToReset / 1000));
}

/** Callers decide what that means (the public API fails open). */
export class RateLimitStoreUnavailable extends Error {}

export function rateLimitExceeded(message: string, msToReset: number): AppError {
  return new AppError('rate_limit_exceeded', message, undefined, {
    'Retry-After': String(retryAfterSeconds(msToReset)),
  });
}

/** Fixed windows: a refused request waits only until its window ends (`blockDuration` unused). */
export class RedisRateLimitStorage implements ThrottlerStorage {
  private readonly logger = new Logger('RateLimit');
  private lastOutageLog = 0;
  private suppressedOutages = 0;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {
    redis.on('error', (error: Error) => this.noteOutage(error));
  }

  /** `key` gets the deployment's key prefix; `ttl` is the window in ms. */
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

  /** Null while Redis is unreachable: Herald's own limits then let the request through. */
  async countOrPass(key: string, ttl: number, limit: number): Promise<RateLimitRecord | null> {
    try {
      return await this.increment(key, ttl, limit);
    } catch (error) {
      if (error instanceof RateLimitStoreUnavailable) return null;
      throw error;
    }
  }

  /** While Redis is unreachable the hit stays, as nothing was counted against it either. */
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

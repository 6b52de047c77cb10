import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { rateLimitHeaders } from './rate-limit.guard';
import {
  RateLimitStoreUnavailable,
  RedisRateLimitStorage,
  retryAfterSeconds,
} from './redis-rate-limit.storage';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const WINDOW_MS = 60_000;

/** The storage against the real Redis the tests use, under a key prefix of this file's own. */
describe('RedisRateLimitStorage (real Redis)', () => {
  let redis: Redis;
  let storage: RedisRateLimitStorage;
  const prefix = `herald-test-${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
    storage = new RedisRateLimitStorage(redis, prefix);
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('lets exactly the limit through when 50 requests race (issue 5, item 4)', async () => {
    const records = await Promise.all(
      Array.from({ length: 50 }, () => storage.increment('race', WINDOW_MS, 10)),
    );
    expect(records.filter((r) => !r.isBlocked)).toHaveLength(10);
    expect(records.map((r) => r.totalHits).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  });

  it('keeps one window per key: its end is fixed by the first hit, within the window length', async () => {
    const before = Date.now();
    const first = await storage.increment('window', WINDOW_MS, 10);
    const second = await storage.increment('window', WINDOW_MS, 10);
    expect(first.resetAtMs).toBeGreaterThanOrEqual(before + WINDOW_MS - 5);
    expect(first.resetAtMs).toBeLessThanOrEqual(Date.now() + WINDOW_MS + 5);
    expect(second.resetAtMs).toBe(first.resetAtMs);
    expect(second.totalHits).toBe(2);
    expect(second.msToReset).toBeLessThanOrEqual(first.msToReset);
    expect(await redis.pttl(`${prefix}:ratelimit:window`)).toBeGreaterThan(WINDOW_MS - 5_000);
  });

  it('starts a fresh window once the last one has ended', async () => {
    const first = await storage.increment('short', 1_000, 1);
    expect((await storage.increment('short', 1_000, 1)).isBlocked).toBe(true);
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, first.resetAtMs - Date.now()) + 50),
    );
    const fresh = await storage.increment('short', 1_000, 1);
    expect(fresh).toMatchObject({ totalHits: 1, isBlocked: false });
    expect(fresh.resetAtMs).toBeGreaterThanOrEqual(first.resetAtMs + 1_000);
  });

  it('reports an unreachable Redis as RateLimitStoreUnavailable, logging it once per interval', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    // Lazy and never connected: nothing to close afterwards (disconnect() on a client that never
    // connected closes it asynchronously and upset the next test file in the same jest worker).
    const gone = new Redis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    try {
      const unreachable = new RedisRateLimitStorage(gone, prefix);
      for (let i = 0; i < 5; i++) {
        await expect(unreachable.increment('x', WINDOW_MS, 10)).rejects.toBeInstanceOf(
          RateLimitStoreUnavailable,
        );
      }
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toMatch(/Rate limits are not enforced: Redis is unreachable/);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('rate-limit headers (D11)', () => {
  const record = (totalHits: number, msToReset: number, resetAtMs: number) => ({
    totalHits,
    timeToExpire: Math.ceil(msToReset / 1000),
    isBlocked: totalHits > 10,
    timeToBlockExpire: 0,
    msToReset,
    resetAtMs,
  });

  it.each([
    // hits, ms left, window end (epoch ms) → Remaining, Reset (epoch s, rounded up), Retry-After
    [1, 59_999, 1_800_000_059_999, '9', '1800000060', 60],
    [10, 30_000, 1_800_000_030_000, '0', '1800000030', 30],
    [11, 1, 1_800_000_000_001, '0', '1800000001', 1],
    [25, 0, 1_800_000_000_000, '0', '1800000000', 1],
  ])(
    '%i hits, %i ms left, window end %i → Remaining %s, Reset %s, Retry-After %i',
    (hits, left, end, remaining, reset, retryAfter) => {
      const r = record(hits, left, end);
      expect(rateLimitHeaders(10, r)).toEqual({
        'X-RateLimit-Limit': '10',
        'X-RateLimit-Remaining': remaining,
        'X-RateLimit-Reset': reset,
      });
      expect(retryAfterSeconds(r.msToReset)).toBe(retryAfter);
    },
  );
});

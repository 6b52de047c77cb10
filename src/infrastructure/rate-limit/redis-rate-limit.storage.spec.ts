import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { AddressInfo, createServer, Server } from 'node:net';
import { TcpProxy } from '../../../test/support/tcp-proxy';
import { createRedisClient } from '../redis/redis.module';
import type { AppConfig } from '../config/config';
import { rateLimitHeaders } from '../../access/rate-limit.guard';
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

  it('lets exactly the limit through when 50 requests race', async () => {
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
        await expect(unreachable.increment('z', WINDOW_MS, 10)).rejects.toBeInstanceOf(
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

/** A client built as production builds it (src/redis/redis.module.ts), to `url`. */
function productionClient(url: string): Redis {
  const redis = createRedisClient({ redisUrl: url } as AppConfig);
  redis.on('error', () => undefined); // until the storage listens
  return redis;
}

async function ready(redis: Redis): Promise<void> {
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
}

/**
 * A Redis that misbehaves in a chosen way, speaking just enough RESP: it answers the client's
 * connection set-up, and every EVALSHA/EVAL with `scriptReply`, raw.
 */
async function misbehavingRedis(scriptReply: string): Promise<Server> {
  const bulk = (text: string) => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
  const answer = (name: string) =>
    name === 'INFO'
      ? bulk('# Server\r\nloading:0\r\n')
      : name === 'EVALSHA' || name === 'EVAL'
        ? scriptReply
        : '+OK\r\n';
  const server = createServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (let command = readCommand(pending); command; command = readCommand(pending)) {
        pending = pending.subarray(command.length);
        socket.write(answer(command.name.toUpperCase()));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** The first RESP command in `data` (an array of bulk strings): its name and byte length. */
function readCommand(data: Buffer): { name: string; length: number } | null {
  const line = (from: number) => {
    const end = data.indexOf('\r\n', from);
    return end < 0 ? null : { text: data.toString('latin1', from, end), next: end + 2 };
  };
  const head = line(0);
  if (!head) return null;
  let at = head.next;
  const parts: string[] = [];
  for (let i = 0; i < Number(head.text.slice(1)); i++) {
    const size = line(at);
    if (!size) return null;
    const end = size.next + Number(size.text.slice(1));
    if (data.length < end + 2) return null;
    parts.push(data.toString('latin1', size.next, end));
    at = end + 2;
  }
  return { name: parts[0] ?? '', length: at };
}

/**
 * A Redis that accepts and then does not answer, and one that answers the script with
 * something else than its three integers. Either way the limiter fails open
 * (RateLimitStoreUnavailable, which the guards turn into "serve without limits"), never a 500, and
 * warns once per interval.
 */
describe('RedisRateLimitStorage when Redis misbehaves', () => {
  let warn: jest.SpyInstance;
  const prefix = `herald-test-${randomBytes(6).toString('hex')}`;

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  it('fails open after its timer when Redis holds the connection but never answers', async () => {
    const proxy = await new TcpProxy('127.0.0.1', Number(new URL(REDIS_URL).port || 6379)).start();
    const redis = productionClient(`redis://127.0.0.1:${proxy.port}`);
    try {
      await ready(redis);
      const storage = new RedisRateLimitStorage(redis, prefix);
      expect((await storage.increment('hung', WINDOW_MS, 10)).totalHits).toBe(1);
      proxy.cut('stall');
      for (let i = 0; i < 3; i++) {
        const error = await storage.increment('hung', WINDOW_MS, 10).catch((e: Error) => e);
        expect(error).toBeInstanceOf(RateLimitStoreUnavailable);
        expect((error as Error).message).toBe('Redis did not answer in 1000 ms');
      }
      expect(redis.status).toBe('ready'); // the connection looked fine: only the timer caught it
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toBe(
        'Rate limits are not enforced: Redis is unreachable: Redis did not answer in 1000 ms',
      );
      proxy.restore();
      await ready(redis);
      // Counting resumes where it was: the window held in Redis was never lost.
      const healed = await waitForAnswer(() => storage.increment('hung', WINDOW_MS, 10));
      expect(healed.totalHits).toBeGreaterThanOrEqual(2);
    } finally {
      redis.disconnect();
      await proxy.stop();
      const cleaner = new Redis(REDIS_URL);
      const keys = await cleaner.keys(`${prefix}:*`);
      if (keys.length > 0) await cleaner.del(...keys);
      await cleaner.quit();
    }
  });

  it.each([
    ['two integers', '*2\r\n:1\r\n:2\r\n'],
    ['a string in the array', '*3\r\n:1\r\n$1\r\nx\r\n:3\r\n'],
    ['a bulk string', '$5\r\nhello\r\n'],
    ['an integer', ':7\r\n'],
    ['nil', '$-1\r\n'],
    ['an error', '-ERR the script went wrong\r\n'],
  ])('fails open when the script answers %s', async (_label, reply) => {
    const server = await misbehavingRedis(reply);
    const redis = productionClient(`redis://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      await ready(redis);
      const storage = new RedisRateLimitStorage(redis, prefix);
      for (let i = 0; i < 2; i++) {
        await expect(storage.increment('odd', WINDOW_MS, 10)).rejects.toBeInstanceOf(
          RateLimitStoreUnavailable,
        );
      }
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toMatch(
        /^Rate limits are not enforced: Redis is unreachable: /,
      );
    } finally {
      redis.disconnect();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

async function waitForAnswer<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe('rate-limit headers', () => {
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

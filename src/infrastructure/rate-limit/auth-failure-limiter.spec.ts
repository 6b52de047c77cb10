import type { Request } from 'express';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../config/config';
import { AppError } from '../../http/errors/error-codes';
import { Metrics } from '../metrics/metrics.service';
import type { QueueRegistry } from '../metrics/queue-registry';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { RedisRateLimitStorage } from './redis-rate-limit.storage';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Failed authentications per client address, on the real Redis. */
describe('AuthFailureLimiter', () => {
  let redis: Redis;
  let limiter: AuthFailureLimiter;
  let metrics: Metrics;
  const prefix = `herald-test-${randomBytes(6).toString('hex')}`;
  const from = (ip: string) => ({ ip, socket: {} }) as unknown as Request;
  const fail = (ip: string) => limiter.failed(from(ip), AppError.unauthorized());

  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
    const config = loadConfig({
      DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
      APP_SECRET: 'z'.repeat(32),
      RATE_LIMIT_AUTH_FAILURES: '2',
    });
    metrics = new Metrics({ queues: () => [] } as unknown as QueueRegistry);
    limiter = new AuthFailureLimiter(new RedisRateLimitStorage(redis, prefix), config, metrics);
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('answers 401 up to the limit, then 429 with Retry-After, and refuses the address before any key check', async () => {
    expect(await fail('198.51.100.20')).toMatchObject({ code: 'unauthorized' });
    expect(await fail('198.51.100.20')).toMatchObject({ code: 'unauthorized' });
    const refused = (await fail('198.51.100.20')) as AppError;
    expect(refused.code).toBe('rate_limit_exceeded');
    expect(Number(refused.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(() => limiter.assertNotBlocked(from('198.51.100.20'))).toThrow(AppError);
    expect(() => limiter.assertNotBlocked(from('198.51.100.21'))).not.toThrow();
    // Both refusals are counted under the auth_failures category of the metrics.
    expect((await metrics.render()).body).toMatch(
      /^herald_rate_limited_total\{category="auth_failures"\} 2$/m,
    );
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address, and IPv6 per /64', async () => {
    await fail('198.51.100.30');
    expect(await fail('::ffff:198.51.100.30')).toMatchObject({ code: 'unauthorized' });
    expect(await fail('198.51.100.30')).toMatchObject({ code: 'rate_limit_exceeded' });

    await fail('2001:db8:aa:bb::1');
    await fail('2001:db8:aa:bb:ffff::2');
    expect(await fail('2001:db8:aa:bb::3')).toMatchObject({ code: 'rate_limit_exceeded' });
    expect(await fail('2001:db8:aa:cc::1')).toMatchObject({ code: 'unauthorized' });
  });

  it('passes other errors through without counting them', async () => {
    const broken = new Error('database is down');
    expect(await limiter.failed(from('198.51.100.40'), broken)).toBe(broken);
    expect(await redis.exists(`${prefix}:ratelimit:auth-failures:198.51.100.40`)).toBe(0);
  });
});

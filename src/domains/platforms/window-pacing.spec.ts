import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../infrastructure/config/config';
import { PACING_WINDOW_MARGIN_MS, WindowPacing } from './window-pacing';

/** Pacing runs on the real Redis: its Lua scripts are the thing under test. */
describe('WindowPacing of a window that takes bursts', () => {
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
    APP_SECRET: 'z'.repeat(32),
    REDIS_KEY_PREFIX: `herald-burst-${randomBytes(4).toString('hex')}`,
  });
  const hourly = { limit: 3, windowMs: 3_600_000, burst: true };
  const pacing = new WindowPacing(redis, config, { account: hourly, channel: hourly }, 'Test');

  afterAll(async () => {
    const keys = await redis.keys(`${config.redisKeyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('lets a window’s sends go back to back, then holds the next until the window has room', async () => {
    for (let i = 0; i < 3; i++) {
      expect(await pacing.reserve({ accountId: 7, channelId: 'feed', cost: 1 })).toEqual({
        kind: 'booked',
        waitMs: 0,
      });
      expect(await pacing.admit(7, 'feed', 1)).toBe(0);
    }
    expect(await pacing.reserve({ accountId: 7, channelId: 'feed', cost: 1 })).toEqual({
      kind: 'booked',
      waitMs: 0,
    });
    const wait = await pacing.admit(7, 'feed', 1);
    expect(wait).toBeGreaterThan(3_600_000 + PACING_WINDOW_MARGIN_MS - 5_000);
    expect(wait).toBeLessThanOrEqual(3_600_000 + PACING_WINDOW_MARGIN_MS);
    // Another account is not held by it.
    expect(await pacing.admit(8, 'feed', 1)).toBe(0);
  });
});

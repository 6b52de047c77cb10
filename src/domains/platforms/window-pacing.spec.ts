import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../infrastructure/config/config';
import { PACING_WINDOW_MARGIN_MS, SETTLE_WINDOW_MIN_MS, WindowPacing } from './window-pacing';

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

describe('WindowPacing reading back what the platform reports', () => {
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
    APP_SECRET: 'z'.repeat(32),
    REDIS_KEY_PREFIX: `herald-reported-${randomBytes(4).toString('hex')}`,
  });
  const statuses = { limit: 300, windowMs: 3_600_000, burst: true };
  const requests = { limit: 4, windowMs: 300_000, burst: true, counts: 'calls' as const };
  const pacing = new WindowPacing(redis, config, { account: statuses, channel: requests }, 'Test');

  afterAll(async () => {
    const keys = await redis.keys(`${config.redisKeyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('counts every call of a send in a window of calls, and messages in the other', async () => {
    // A status with two uploads is three calls of the four: a second such status must wait.
    expect(await pacing.admit(1, 'feed', 1, 3)).toBe(0);
    expect(await pacing.admit(1, 'feed', 1, 3)).toBeGreaterThan(290_000);
    // A text status is one call, and fits.
    expect(await pacing.admit(1, 'feed', 1, 1)).toBe(0);
    expect(await pacing.admit(1, 'feed', 1, 1)).toBeGreaterThan(290_000);
    // The same sends reserve their slots by their calls too: none is booked ahead of a bursty window.
    expect(await pacing.reserve({ accountId: 1, channelId: 'feed', cost: 1, calls: 3 })).toEqual({
      kind: 'booked',
      waitMs: 0,
    });
  });

  it('holds the window the platform says is spent until its reset, and no other account', async () => {
    await pacing.observe(2, 'feed', { window: 'account', remaining: 0, resetAfterMs: 20_000 });
    const wait = await pacing.admit(2, 'feed', 1, 1);
    expect(wait).toBeGreaterThan(19_000);
    expect(wait).toBeLessThanOrEqual(20_000 + PACING_WINDOW_MARGIN_MS);
    expect(await pacing.admit(3, 'feed', 1, 1)).toBe(0);
    await pacing.observe(4, 'feed', { window: 'channel', remaining: 0, resetAfterMs: 20_000 });
    expect(await pacing.admit(4, 'feed', 1, 1)).toBeGreaterThan(19_000);
    expect(await pacing.admit(4, 'other', 1, 1)).toBe(0);
  });

  it('spends what it admits from the reported budget, then waits for the reset', async () => {
    await pacing.observe(5, 'feed', { window: 'account', remaining: 2, resetAfterMs: 30_000 });
    expect(await pacing.admit(5, 'feed', 1, 1)).toBe(0);
    expect(await pacing.admit(5, 'feed', 1, 1)).toBe(0);
    expect(await pacing.admit(5, 'feed', 1, 1)).toBeGreaterThan(29_000);
  });

  it('within one window keeps the lower count; a later window replaces it; an earlier answer is ignored', async () => {
    await pacing.observe(6, 'feed', { window: 'account', remaining: 1, resetAfterMs: 30_000 });
    // An answer of the same window that left before the send admitted meanwhile: still 1, not 5.
    await pacing.observe(6, 'feed', { window: 'account', remaining: 5, resetAfterMs: 29_800 });
    expect(await pacing.admit(6, 'feed', 1, 1)).toBe(0);
    expect(await pacing.admit(6, 'feed', 1, 1)).toBeGreaterThan(29_000);
    // An answer of the window before (an earlier reset) changes nothing.
    await pacing.observe(6, 'feed', { window: 'account', remaining: 9, resetAfterMs: 10_000 });
    expect(await pacing.admit(6, 'feed', 1, 1)).toBeGreaterThan(29_000);
    // The platform's next window: its count replaces the spent one.
    await pacing.observe(6, 'feed', { window: 'account', remaining: 3, resetAfterMs: 90_000 });
    expect(await pacing.admit(6, 'feed', 1, 1)).toBe(0);
  });

  it('forgets a report once its reset has passed', async () => {
    await pacing.observe(7, 'feed', { window: 'account', remaining: 0, resetAfterMs: 300 });
    expect(await pacing.admit(7, 'feed', 1, 1)).toBeGreaterThan(0);
    await new Promise((done) => setTimeout(done, 400));
    expect(await pacing.admit(7, 'feed', 1, 1)).toBe(0);
  });
});

describe('WindowPacing counting a send of a long window from its answer', () => {
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
    APP_SECRET: 'z'.repeat(32),
    REDIS_KEY_PREFIX: `herald-settle-${randomBytes(4).toString('hex')}`,
  });
  const LONG = 20_000;
  const SHORT = 2_000;
  const pacing = (windowMs: number) =>
    new WindowPacing(
      redis,
      config,
      {
        account: { limit: 1, windowMs, burst: true },
        channel: { limit: 1, windowMs, burst: true },
      },
      'Test',
    );
  const answerTakes = () => new Promise((done) => setTimeout(done, 300));

  afterAll(async () => {
    const keys = await redis.keys(`${config.redisKeyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('holds the next send a whole window after the answer: however late the send arrived, it is counted', async () => {
    expect(LONG).toBeGreaterThanOrEqual(SETTLE_WINDOW_MIN_MS);
    const long = pacing(LONG);
    expect(await long.admit(1, 'feed', 1, 1, '10:0')).toBe(0);
    await answerTakes();
    await long.settle(1, 'feed', '10:0', 1, 1);
    const wait = await long.admit(1, 'feed', 1, 1, '11:0');
    // Counted from the admission, 300 ms would have come off the window.
    expect(wait).toBeGreaterThan(LONG + PACING_WINDOW_MARGIN_MS - 100);
    expect(wait).toBeLessThanOrEqual(LONG + PACING_WINDOW_MARGIN_MS);
    // The stamp was moved, not added: settling again changes nothing.
    await long.settle(1, 'feed', '10:0', 1, 1);
    expect(await redis.llen(`${config.redisKeyPrefix}:pacing:sent:1`)).toBe(1);
  });

  it('counts a send of a short window from its admission, where the answer’s time would cost a share of it', async () => {
    const short = pacing(SHORT);
    expect(await short.admit(2, 'feed', 1, 1, '20:0')).toBe(0);
    await answerTakes();
    await short.settle(2, 'feed', '20:0', 1, 1);
    const wait = await short.admit(2, 'feed', 1, 1, '21:0');
    expect(wait).toBeLessThanOrEqual(SHORT + PACING_WINDOW_MARGIN_MS - 290);
    expect(await redis.exists(`${config.redisKeyPrefix}:pacing:admitted:20:0`)).toBe(0);
  });
});

import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../config/config';
import { TelegramPacing } from './telegram-pacing';

/** Pacing runs on the real Redis: its Lua script is the thing under test. */
describe('TelegramPacing (issue 4, point 6: spread sends instead of collecting 429s)', () => {
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
    APP_SECRET: 'x'.repeat(32),
    REDIS_KEY_PREFIX: `herald-pacing-${randomBytes(4).toString('hex')}`,
    TELEGRAM_BOT_MESSAGES_PER_SECOND: '10',
    TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '60',
  });
  const pacing = new TelegramPacing(redis, config);

  beforeAll(async () => {
    await redis.ping();
  });

  afterAll(async () => {
    const keys = await redis.keys(`${config.redisKeyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('spaces sends to one chat by the per-minute limit (60/min: one a second)', async () => {
    const waits = [];
    for (let i = 0; i < 3; i++) waits.push(await pacing.reserve(1, '-100', 1));
    expect(waits[0]).toBe(0);
    expect(waits[1]).toBeGreaterThan(800);
    expect(waits[1]).toBeLessThanOrEqual(1000);
    expect(waits[2]).toBeGreaterThan(1800);
    expect(waits[2]).toBeLessThanOrEqual(2000);
  });

  it('spaces sends of one bot across chats by the per-second limit (10/s: 100 ms apart)', async () => {
    const waits = [];
    for (let i = 0; i < 5; i++) waits.push(await pacing.reserve(2, `-200${i}`, 1));
    expect(waits[0]).toBe(0);
    for (let i = 1; i < 5; i++) {
      expect(waits[i]).toBeGreaterThan(i * 100 - 80);
      expect(waits[i]).toBeLessThanOrEqual(i * 100);
    }
  });

  it('an album counts as many messages as it holds', async () => {
    expect(await pacing.reserve(3, '-300', 4)).toBe(0);
    const next = await pacing.reserve(3, '-300', 1);
    expect(next).toBeGreaterThan(3_800);
    expect(next).toBeLessThanOrEqual(4_000);
  });

  it('different bots do not wait for each other', async () => {
    expect(await pacing.reserve(4, '-400', 1)).toBe(0);
    expect(await pacing.reserve(5, '-400', 1)).toBe(0);
  });
});

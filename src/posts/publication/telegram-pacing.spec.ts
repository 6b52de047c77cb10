import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../config/config';
import { PACING_SAFETY_MARGIN, TelegramPacing } from './telegram-pacing';

/** Pacing runs on the real Redis: its Lua script is the thing under test. */
describe('TelegramPacing (issue 4, point 6 and issue 14: spread sends instead of collecting 429s)', () => {
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
    APP_SECRET: 'x'.repeat(32),
    REDIS_KEY_PREFIX: `herald-pacing-${randomBytes(4).toString('hex')}`,
    TELEGRAM_BOT_MESSAGES_PER_SECOND: '10',
    TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '60',
  });
  const pacing = new TelegramPacing(redis, config);
  /** The spacings with the safety margin: 10/s and 60/min. */
  const BOT = 100 * (1 + PACING_SAFETY_MARGIN);
  const CHAT = 1000 * (1 + PACING_SAFETY_MARGIN);

  beforeAll(async () => {
    await redis.ping();
  });

  afterAll(async () => {
    const keys = await redis.keys(`${config.redisKeyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('queues sends to a busy chat one chat interval apart, holding only the chat', async () => {
    const first = await pacing.reserve(1, '-100', 1);
    expect(first).toEqual({ waitMs: 0, sendAtSlot: true });
    const second = await pacing.reserve(1, '-100', 1);
    const third = await pacing.reserve(1, '-100', 1);
    expect(second.sendAtSlot).toBe(false);
    expect(second.waitMs).toBeGreaterThan(CHAT - 200);
    expect(second.waitMs).toBeLessThanOrEqual(CHAT);
    expect(third.sendAtSlot).toBe(false);
    expect(third.waitMs).toBeGreaterThan(2 * CHAT - 200);
    expect(third.waitMs).toBeLessThanOrEqual(2 * CHAT);
  });

  it('a held chat slot books the bot and may send at once when the bot is free', async () => {
    await pacing.reserve(7, '-700', 1);
    expect((await pacing.reserve(7, '-700', 1)).sendAtSlot).toBe(false);
    // Coming back with the slot held (here, early) books the bot: it no longer queues on the chat.
    const held = await pacing.reserve(7, '-700', 1, true);
    expect(held.sendAtSlot).toBe(true);
    expect(held.waitMs).toBeLessThanOrEqual(BOT);
  });

  it('spaces sends of one bot across chats by the per-second limit with its margin', async () => {
    const slots = [];
    for (let i = 0; i < 5; i++) slots.push(await pacing.reserve(2, `-200${i}`, 1));
    expect(slots[0].waitMs).toBe(0);
    for (let i = 1; i < 5; i++) {
      expect(slots[i].sendAtSlot).toBe(true);
      expect(slots[i].waitMs).toBeGreaterThan(i * BOT - 80);
      expect(slots[i].waitMs).toBeLessThanOrEqual(Math.ceil(i * BOT));
    }
  });

  it('an album counts as many messages as it holds', async () => {
    expect((await pacing.reserve(3, '-300', 4)).waitMs).toBe(0);
    const next = await pacing.reserve(3, '-300', 1);
    expect(next.waitMs).toBeGreaterThan(4 * CHAT - 200);
    expect(next.waitMs).toBeLessThanOrEqual(4 * CHAT);
  });

  it('different bots do not wait for each other', async () => {
    expect((await pacing.reserve(4, '-400', 1)).waitMs).toBe(0);
    expect((await pacing.reserve(5, '-400', 1)).waitMs).toBe(0);
  });

  it('a busy chat does not delay the other chats of its bot (issue 14, defect a)', async () => {
    // 5 sends to one chat (60/min: about one a second), then 5 to other chats of the same bot.
    for (let i = 0; i < 5; i++) await pacing.reserve(6, '-600', 1);
    const others = [];
    for (let i = 0; i < 5; i++) others.push(await pacing.reserve(6, `-601${i}`, 1));
    // Each other chat waits for the bot's spacing only (the first send took one slot), never
    // for -600's next second.
    for (const [i, slot] of others.entries()) {
      expect(slot.sendAtSlot).toBe(true);
      expect(slot.waitMs).toBeLessThanOrEqual(Math.ceil((i + 1) * BOT));
    }
  });
});

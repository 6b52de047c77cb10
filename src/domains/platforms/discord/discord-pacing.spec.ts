import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../../infrastructure/config/config';
import { PACING_WINDOW_MARGIN_MS } from '../window-pacing';
import { DiscordPacing } from './discord-pacing';

/** Discord's pacing on the real Redis: 5 messages per 5 s in a channel, 50 a second per bot. */
describe('DiscordPacing', () => {
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
    APP_SECRET: 'z'.repeat(32),
    REDIS_KEY_PREFIX: `herald-discord-pacing-${randomBytes(4).toString('hex')}`,
  });
  const pacing = new DiscordPacing(redis, config);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** Departs once the bot's least gap between two sends has passed, as a worker would. */
  const depart = async (account: number, channel: string) => {
    await sleep(pacing.admitSpacingMs + 1);
    return pacing.admit(account, channel, 1);
  };

  afterAll(async () => {
    const keys = await redis.keys(`${config.redisKeyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it("a channel's sixth message within five seconds waits; another channel of the bot does not", async () => {
    for (let i = 0; i < 5; i++) expect(await depart(1, '100')).toBe(0);
    const wait = await depart(1, '100');
    expect(wait).toBeGreaterThan(4_000);
    expect(wait).toBeLessThanOrEqual(5_000 + PACING_WINDOW_MARGIN_MS);
    expect(await depart(1, '200')).toBe(0);
  });

  it("spaces a bot's sends by its 50 a second, over all its channels", () => {
    // Half of a 50th of a second (with the window's margin) between two departures of one bot.
    expect(pacing.admitSpacingMs).toBeCloseTo((1_000 + PACING_WINDOW_MARGIN_MS) / 50 / 2, 5);
  });

  it('another bot has its own channel windows', async () => {
    for (let i = 0; i < 5; i++) expect(await depart(2, '300')).toBe(0);
    expect(await depart(3, '300')).toBe(0);
  });
});

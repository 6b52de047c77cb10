import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { loadConfig } from '../../../infrastructure/config/config';
import { PACING_SAVE_AFTER_MS, PACING_WINDOW_MARGIN_MS } from '../window-pacing';
import { TelegramPacing } from './telegram-pacing';

/** Pacing runs on the real Redis: its Lua script is the thing under test. */
describe('TelegramPacing: spread sends instead of collecting 429s', () => {
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
    APP_SECRET: 'z'.repeat(32),
    REDIS_KEY_PREFIX: `herald-pacing-${randomBytes(4).toString('hex')}`,
    TELEGRAM_BOT_MESSAGES_PER_SECOND: '10',
    TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '60',
  });
  const pacing = new TelegramPacing(redis, config);
  /** The spacings, each window counted with its margin: 10/s and 60/min. */
  const BOT = (1000 + PACING_WINDOW_MARGIN_MS) / 10;
  const CHAT = (60_000 + PACING_WINDOW_MARGIN_MS) / 60;

  beforeAll(async () => {
    await redis.ping();
  });

  afterAll(async () => {
    const keys = await redis.keys(`${config.redisKeyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  // Sends to one chat, in order: each waits the chat interval once per message booked before it.
  it.each([
    { sends: 'single messages one chat interval apart', account: 1, costs: [1, 1, 1] },
    { sends: 'an album as the messages it holds', account: 3, costs: [4, 1] },
  ])('holds only a busy chat and queues $sends', async ({ account, costs }) => {
    const chat = `-${account}00`;
    let before = 0;
    for (const [i, cost] of costs.entries()) {
      const slot = await pacing.reserve({ accountId: account, channelId: chat, cost });
      if (i === 0) {
        expect(slot).toEqual({ kind: 'booked', waitMs: 0 });
      } else {
        expect(slot.kind).toBe('channel_busy');
        expect(slot.waitMs).toBeGreaterThan(before * CHAT - 200);
        expect(slot.waitMs).toBeLessThanOrEqual(Math.ceil(before * CHAT));
      }
      before += cost;
    }
  });

  it('a held chat slot books the bot and may send at once when the bot is free', async () => {
    await pacing.reserve({ accountId: 7, channelId: '-700', cost: 1 });
    expect((await pacing.reserve({ accountId: 7, channelId: '-700', cost: 1 })).kind).toBe(
      'channel_busy',
    );
    // Coming back with the slot held (here, early) books the bot: it no longer queues on the chat.
    const held = await pacing.reserve({
      accountId: 7,
      channelId: '-700',
      cost: 1,
      holdsChannel: true,
    });
    expect(held.kind).toBe('booked');
    expect(held.waitMs).toBeLessThanOrEqual(Math.ceil(BOT));
  });

  it('spaces sends of one bot across chats by the per-second limit with its margin', async () => {
    // Each wait counts from its own reservation: the time that passed since the first one (long
    // on a loaded machine) comes off it, and no more than that (1 ms for Redis's clock's rounding).
    const start = performance.now();
    const slots = [];
    for (let i = 0; i < 5; i++) {
      const slot = await pacing.reserve({ accountId: 2, channelId: `-200${i}`, cost: 1 });
      slots.push({ ...slot, elapsedMs: performance.now() - start });
    }
    expect(slots[0].waitMs).toBe(0);
    for (let i = 1; i < 5; i++) {
      expect(slots[i].kind).toBe('booked');
      expect(slots[i].waitMs).toBeGreaterThanOrEqual(i * BOT - slots[i].elapsedMs - 1);
      expect(slots[i].waitMs).toBeLessThanOrEqual(Math.ceil(i * BOT));
    }
  });

  it('different bots do not wait for each other', async () => {
    expect((await pacing.reserve({ accountId: 4, channelId: '-400', cost: 1 })).waitMs).toBe(0);
    expect((await pacing.reserve({ accountId: 5, channelId: '-400', cost: 1 })).waitMs).toBe(0);
  });

  it('a busy chat does not delay the other chats of its bot', async () => {
    // 5 sends to one chat (60/min: about one a second), then 5 to other chats of the same bot.
    for (let i = 0; i < 5; i++) await pacing.reserve({ accountId: 6, channelId: '-600', cost: 1 });
    const others = [];
    for (let i = 0; i < 5; i++)
      others.push(await pacing.reserve({ accountId: 6, channelId: `-601${i}`, cost: 1 }));
    // Each other chat waits for the bot's spacing only (the first send took one slot), never
    // for -600's next second.
    for (const [i, slot] of others.entries()) {
      expect(slot.kind).toBe('booked');
      expect(slot.waitMs).toBeLessThanOrEqual(Math.ceil((i + 1) * BOT));
    }
  });

  it('saves a bot slot too far ahead for its holder, who gets that slot again, not a new one', async () => {
    // Sends of one bot until it is booked further ahead than a job waits for in a worker slot
    // (how many depends on how long each reservation takes: the slots are counted from now).
    const inline = Math.floor(PACING_SAVE_AFTER_MS / BOT) + 1;
    let far: Awaited<ReturnType<TelegramPacing['reserve']>> | undefined;
    let holder = '';
    let askedAt = 0;
    for (let i = 0; i < 2 * inline && far?.kind !== 'saved'; i++) {
      holder = `t${i}:0`;
      askedAt = Date.now();
      far = await pacing.reserve({ accountId: 8, channelId: `-80${i}`, cost: 1, holder: holder });
      if (far.kind !== 'saved') expect(far.waitMs).toBeLessThanOrEqual(PACING_SAVE_AFTER_MS + 1);
    }
    expect(far?.kind).toBe('saved');
    expect(far!.waitMs).toBeGreaterThan(PACING_SAVE_AFTER_MS);
    // Back too early (a sweep re-enqueued it), the slot stays saved: it is not waited for here.
    const early = await pacing.reserve({ accountId: 8, channelId: '-8100', cost: 1, holder });
    expect(early.kind).toBe('saved');
    expect(early.waitMs).toBeLessThanOrEqual(far!.waitMs);
    // Coming back near it (as if it were that late), the holder gets its saved slot, and the bot
    // is not booked again for it.
    const back = await pacing.reserve({
      accountId: 8,
      channelId: '-8100',
      cost: 1,
      holder: holder,
      saveAfterMs: far!.waitMs + 1,
    });
    expect(back.kind).toBe('booked');
    expect(back.waitMs).toBeLessThanOrEqual(far!.waitMs);
    const next = await pacing.reserve({ accountId: 8, channelId: '-8101', cost: 1 });
    // The slot right after the saved one (booked again, it would be one more spacing later).
    expect(next.waitMs).toBeGreaterThanOrEqual(far!.waitMs + BOT - (Date.now() - askedAt) - 2);
    expect(next.waitMs).toBeLessThanOrEqual(Math.ceil(far!.waitMs + BOT));
  });

  it('with nowhere to wait, saves any slot ahead, and keeps it saved until the holder comes at it', async () => {
    await pacing.reserve({ accountId: 9, channelId: '-900', cost: 1 });
    const ahead = await pacing.reserve({
      accountId: 9,
      channelId: '-901',
      cost: 1,
      holder: 'w:0',
      saveAfterMs: 0,
    });
    expect(ahead.kind).toBe('saved');
    expect(ahead.waitMs).toBeLessThanOrEqual(Math.ceil(BOT));
    // Back too early, still with nowhere to wait: the same slot, saved still.
    const again = await pacing.reserve({
      accountId: 9,
      channelId: '-901',
      cost: 1,
      holder: 'w:0',
      saveAfterMs: 0,
    });
    expect(again.kind).toBe('saved');
    expect(again.waitMs).toBeLessThanOrEqual(ahead.waitMs);
    // Back at the slot: it is the holder's, now.
    await new Promise((resolve) => setTimeout(resolve, again.waitMs + 5));
    expect(
      await pacing.reserve({
        accountId: 9,
        channelId: '-901',
        cost: 1,
        holder: 'w:0',
        saveAfterMs: 0,
      }),
    ).toEqual({ kind: 'booked', waitMs: 0 });
  });

  describe('the check at departure: stamps of real departures, not of slots', () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const pacingWith = (botPerSecond: number, chatPerMinute: number, prefix: string) =>
      new TelegramPacing(
        redis,
        loadConfig({
          DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
          APP_SECRET: 'z'.repeat(32),
          REDIS_KEY_PREFIX: prefix,
          TELEGRAM_BOT_MESSAGES_PER_SECOND: String(botPerSecond),
          TELEGRAM_CHAT_MESSAGES_PER_MINUTE: String(chatPerMinute),
        }),
      );

    /** Departures spaced by the bot's least gap, so that only the windows can hold one back. */
    const spaced = async (p: TelegramPacing, bot: number, chat: string, cost: number) => {
      await sleep(p.admitSpacingMs + 1);
      return p.admit(bot, chat, cost);
    };

    it("keeps two departures of one bot half its spacing apart, and no other bot's", async () => {
      expect(pacing.admitSpacingMs).toBeCloseTo(BOT / 2);
      expect(await pacing.admit(14, '-1400', 1)).toBe(0);
      const wait = await pacing.admit(14, '-1401', 1);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(Math.ceil(BOT / 2));
      expect(await pacing.admit(15, '-1500', 1)).toBe(0);
      await sleep(wait);
      expect(await pacing.admit(14, '-1401', 1)).toBe(0);
    });

    it("lets a bot's limit leave at once, then answers the wait until its window has room", async () => {
      for (let i = 0; i < 10; i++) expect(await spaced(pacing, 10, `-10${i}`, 1)).toBe(0);
      // The 11th would make 11 in a second: it waits for the first stamp to leave the window,
      // counted with its margin, and is not stamped meanwhile.
      const wait = await spaced(pacing, 10, '-1010', 1);
      expect(wait).toBeGreaterThan(PACING_WINDOW_MARGIN_MS);
      expect(wait).toBeLessThanOrEqual(1000 + PACING_WINDOW_MARGIN_MS);
      expect(await spaced(pacing, 10, '-1010', 1)).toBeGreaterThan(0);
      await sleep(wait);
      expect(await spaced(pacing, 10, '-1010', 1)).toBe(0);
    });

    it('an album needs room for all its messages', async () => {
      for (let i = 0; i < 7; i++) expect(await spaced(pacing, 11, `-11${i}`, 1)).toBe(0);
      expect(await spaced(pacing, 11, '-1100', 4)).toBeGreaterThan(0);
      expect(await spaced(pacing, 11, '-1100', 3)).toBe(0);
      expect(await spaced(pacing, 11, '-1101', 1)).toBeGreaterThan(0);
    });

    it("counts a chat's minute on its own: a full chat waits, the bot's other chats go", async () => {
      const chatty = pacingWith(100, 3, `${config.redisKeyPrefix}-chat`);
      for (let i = 0; i < 3; i++) expect(await spaced(chatty, 12, '-1200', 1)).toBe(0);
      const wait = await spaced(chatty, 12, '-1200', 1);
      expect(wait).toBeGreaterThan(50_000);
      expect(wait).toBeLessThanOrEqual(60_000 + PACING_WINDOW_MARGIN_MS);
      expect(await spaced(chatty, 12, '-1201', 1)).toBe(0);
    });

    it('a send marked in flight first gets its slot and its admission in one call', async () => {
      expect(pacing.hadRoom(16)).toBe(false);
      const now = await pacing.reserve({
        accountId: 16,
        channelId: '-1600',
        cost: 1,
        holder: 'a:0',
        admitIfNow: true,
      });
      expect(now).toEqual({ kind: 'booked', waitMs: 0, admitWaitMs: 0 });
      expect(pacing.hadRoom(16)).toBe(true);
      // It was stamped as leaving: the bot's next departure keeps the least gap after it.
      expect(await pacing.admit(16, '-1601', 1)).toBeGreaterThan(0);
      // A slot that is not now answers no departure and stamps nothing.
      const later = await pacing.reserve({
        accountId: 16,
        channelId: '-1602',
        cost: 1,
        holder: 'b:0',
        admitIfNow: true,
      });
      expect(later.waitMs).toBeGreaterThan(0);
      expect(later).toEqual({ kind: 'booked', waitMs: later.waitMs });
      expect(pacing.hadRoom(16)).toBe(false);
    });

    it('a slot less than a ms ahead is now: it is admitted in the same call', async () => {
      const fast = pacingWith(1_000_000, 1_000_000, `${config.redisKeyPrefix}-fast`);
      // Asked together, within one ms: each books the bot a microsecond after the one before.
      const slots = await Promise.all(
        [0, 1, 2, 3, 4].map((i) =>
          fast.reserve({
            accountId: 18,
            channelId: `-180${i}`,
            cost: 1,
            holder: `f${i}:0`,
            admitIfNow: true,
          }),
        ),
      );
      for (const slot of slots) expect(slot).toEqual({ kind: 'booked', waitMs: 0, admitWaitMs: 0 });
    });

    it('a slot that is now but whose window is full answers the wait, unstamped', async () => {
      const tight = pacingWith(100, 1, `${config.redisKeyPrefix}-tight`);
      expect(await tight.admit(17, '-1700', 1)).toBe(0);
      // The chat's minute holds one message: the bot has room, the chat's window has none.
      await sleep(tight.admitSpacingMs + 1);
      const full = await tight.reserve({
        accountId: 17,
        channelId: '-1700',
        cost: 1,
        holdsChannel: true,
        holder: 'c:0',
        admitIfNow: true,
      });
      expect(full.waitMs).toBe(0);
      expect(full.kind === 'booked' && full.admitWaitMs).toBeGreaterThan(50_000);
      // Nothing was stamped: another chat of the bot leaves at once.
      expect(await spaced(tight, 17, '-1701', 1)).toBe(0);
    });

    it("two workers share one bot's window through Redis", async () => {
      const one = pacingWith(10, 60, `${config.redisKeyPrefix}-shared`);
      const two = pacingWith(10, 60, `${config.redisKeyPrefix}-shared`);
      for (let i = 0; i < 5; i++) {
        expect(await spaced(one, 13, `-13${i}`, 1)).toBe(0);
        expect(await spaced(two, 13, `-135${i}`, 1)).toBe(0);
      }
      expect(await spaced(one, 13, '-1399', 1)).toBeGreaterThan(0);
      expect(await spaced(two, 13, '-1399', 1)).toBeGreaterThan(0);
    });
  });

  it('a Redis that is connected but does not answer leaves sends unpaced, not held', async () => {
    // A server that answers the client's greeting (CLIENT SETINFO) and nothing after: the shared
    // client (no offline queue) is ready and writes its commands to it; only the time limit ends them.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('data', (data) =>
        socket.write('+OK\r\n'.repeat((data.toString().match(/SETINFO/gi) ?? []).length)),
      );
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const hung = new Redis((silent.address() as AddressInfo).port, '127.0.0.1', {
      enableReadyCheck: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      await new Promise((resolve) => hung.once('ready', resolve));
      const unanswered = new TelegramPacing(
        hung,
        loadConfig({
          DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
          APP_SECRET: 'z'.repeat(32),
          PUBLICATION_ENQUEUE_TIMEOUT_MS: '100',
        }),
      );
      expect(
        await unanswered.reserve({
          accountId: 19,
          channelId: '-1900',
          cost: 1,
          holder: 'h:0',
          admitIfNow: true,
        }),
      ).toEqual({
        kind: 'booked',
        waitMs: 0,
        admitWaitMs: 0,
      });
      expect(await unanswered.admit(19, '-1900', 1)).toBe(0);
      expect(warn).toHaveBeenCalledTimes(2);
    } finally {
      warn.mockRestore();
      hung.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

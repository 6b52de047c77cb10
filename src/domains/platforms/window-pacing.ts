import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../infrastructure/config/config';
import { RedisScript } from '../../infrastructure/redis/redis-script';
import { withinTime } from '../../infrastructure/redis/time-limit';
import type { PacingSlot, PlatformPacing, ReserveRequest } from './platform';
import type { RateLimitReport } from './rate-limit-report';

/** A send arrives after its stamp, so windows are counted longer (docs/performance.md#pacing). */
export const PACING_WINDOW_MARGIN_MS = 50;

/** Windows this long count a send from its answer, not its admission (docs/performance.md). */
export const SETTLE_WINDOW_MIN_MS = 10_000;

// Admission as the send leaves: per key the stamps of its last `limit` messages, newest first; 0
// (stamped, and kept under `settleKey` for SETTLE) when both windows and the reported budgets have
// room, else the ms to wait; one account's sends `gap` ms apart.
const ADMIT_LUA = `
local function reported(key, cost, now)
  local budget = redis.call('HMGET', key, 'remaining', 'reset')
  if not budget[1] then return 0 end
  local reset = tonumber(budget[2])
  if reset <= now or tonumber(budget[1]) >= cost then return 0 end
  return reset - now
end
local function admit(sentBot, sentChat, budgetBot, budgetChat, botCost, chatCost, botLimit, botWindow, chatLimit, chatWindow, gap, margin, settleKey)
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
  local keys = {sentBot, sentChat}
  local budgets = {budgetBot, budgetChat}
  local costs = {tonumber(botCost), tonumber(chatCost)}
  local limits = {tonumber(botLimit), tonumber(chatLimit)}
  local windows = {tonumber(botWindow), tonumber(chatWindow)}
  local wait = 0
  for i = 1, 2 do
    local oldest = redis.call('LINDEX', keys[i], limits[i] - math.min(costs[i], limits[i]))
    if oldest then wait = math.max(wait, tonumber(oldest) + windows[i] - now) end
    local held = reported(budgets[i], costs[i], now)
    if held > 0 then wait = math.max(wait, held + tonumber(margin)) end
  end
  local newest = redis.call('LINDEX', sentBot, 0)
  if newest then wait = math.max(wait, tonumber(newest) + tonumber(gap) - now) end
  if wait > 0 then return math.ceil(wait) end
  local stamp = string.format('%.3f', now)
  for i = 1, 2 do
    for _ = 1, costs[i] do redis.call('LPUSH', keys[i], stamp) end
    redis.call('LTRIM', keys[i], 0, limits[i] - 1)
    redis.call('PEXPIRE', keys[i], math.ceil(windows[i]))
    if tonumber(redis.call('HGET', budgets[i], 'reset') or '0') > now then
      redis.call('HINCRBY', budgets[i], 'remaining', -costs[i])
    end
  end
  if settleKey ~= '' then
    redis.call('SET', settleKey, stamp, 'PX', math.ceil(math.max(windows[1], windows[2])))
  end
  return 0
end
`;

// Slots ahead, strict spacing on two keys (account, account in channel; ms since epoch, `%.3f`).
// A busy channel answers {0, wait} without touching the account; the caller returns with ARGV[5]=1.
// Else books the account: {1, wait}, or {2, wait} saved under KEYS[3] when beyond ARGV[6] ms.
// With ARGV[7]=1 a slot that is now also runs ADMIT: {1, 0, ADMIT's answer}, one round trip.
const RESERVE = new RedisScript(
  `${ADMIT_LUA}
local now = tonumber(ARGV[1])
-- A slot less than a ms ahead is now (ADMIT decides the exact moment anyway); with ARGV[7] = '1'
-- it is also admitted (ADMIT's check, on KEYS[4] and KEYS[5]).
local function slot(wait)
  if wait >= 1 then return {1, math.ceil(wait)} end
  if ARGV[7] ~= '1' then return {1, 0} end
  return {1, 0, admit(KEYS[4], KEYS[5], KEYS[6], KEYS[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11],
    ARGV[12], ARGV[13], ARGV[14], ARGV[15], ARGV[16])}
end
local saved = redis.call('GET', KEYS[3])
if saved then
  if tonumber(saved) - now > tonumber(ARGV[6]) then return {2, math.ceil(tonumber(saved) - now)} end
  redis.call('DEL', KEYS[3])
  return slot(tonumber(saved) - now)
end
local cost = tonumber(ARGV[2])
local chatCost = tonumber(ARGV[9])
local botInterval = tonumber(ARGV[3])
local chatInterval = tonumber(ARGV[4])
local holdsChat = ARGV[5] == '1'
local chatFree = tonumber(redis.call('GET', KEYS[2]) or '0')
local function hold(key, free)
  redis.call('SET', key, string.format('%.3f', free), 'PX', math.ceil(free - now) + 1000)
end
if not holdsChat and chatFree > now then
  hold(KEYS[2], chatFree + chatCost * chatInterval)
  return {0, math.ceil(chatFree - now)}
end
local at = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
hold(KEYS[1], at + cost * botInterval)
hold(KEYS[2], math.max(chatFree, at + chatCost * chatInterval))
if at - now > tonumber(ARGV[6]) then
  redis.call('SET', KEYS[3], string.format('%.3f', at), 'PX', math.ceil(at - now) + 60000)
  return {2, math.ceil(at - now)}
end
return slot(at - now)
`,
  7,
);

const ADMIT = new RedisScript(
  `${ADMIT_LUA}
return admit(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5],
  ARGV[6], ARGV[7], ARGV[8], ARGV[9])`,
  4,
);

// The send was answered: its stamps in the flagged windows move to now, still newest first.
const SETTLE = new RedisScript(
  `local stamp = redis.call('GET', KEYS[1])
if not stamp then return 0 end
redis.call('DEL', KEYS[1])
local time = redis.call('TIME')
local now = string.format('%.3f', tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000)
for i = 1, 2 do
  if ARGV[2 + i] == '1' then
    local moved = redis.call('LREM', KEYS[1 + i], tonumber(ARGV[i]), stamp)
    for _ = 1, moved do redis.call('LPUSH', KEYS[1 + i], now) end
    if moved > 0 then redis.call('PEXPIRE', KEYS[1 + i], ARGV[4 + i]) end
  end
end
return 1`,
  3,
);

// A report (remaining, ms until reset, tolerance): in the same window the lower count wins (later
// admissions are not in the platform's count yet); a later reset replaces it; an earlier is ignored.
const OBSERVE = new RedisScript(
  `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local remaining = tonumber(ARGV[1])
local reset = now + tonumber(ARGV[2])
local tolerance = tonumber(ARGV[3])
local kept = redis.call('HMGET', KEYS[1], 'remaining', 'reset')
if kept[1] and tonumber(kept[2]) > now then
  local keptReset = tonumber(kept[2])
  if reset < keptReset - tolerance then return 0 end
  if reset <= keptReset + tolerance then
    if remaining < tonumber(kept[1]) then redis.call('HSET', KEYS[1], 'remaining', remaining) end
    return 0
  end
end
redis.call('HSET', KEYS[1], 'remaining', remaining, 'reset', string.format('%.3f', reset))
redis.call('PEXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2])) + 1000)
return 1`,
  1,
);

/** Two reports whose resets are this close describe the same window of the platform. */
export const SAME_WINDOW_TOLERANCE_MS = 1_000;

// Moves the account's next slot to ARGV[2] (epoch ms) unless it is later already.
const HOLD = new RedisScript(
  `local free = tonumber(redis.call('GET', KEYS[1]) or '0')
local hold = tonumber(ARGV[2])
if hold > free then
  redis.call('SET', KEYS[1], string.format('%.3f', hold), 'PX', math.ceil(hold - tonumber(ARGV[1])) + 1000)
end
return 0`,
  1,
);

export const PACING_SAVE_AFTER_MS = 2_000;

/** At most `limit` messages (or calls) in any `windowMs`, as a platform counts them. */
export interface PacingWindow {
  limit: number;
  windowMs: number;
  /** What the window counts: messages (the default), or every call a send makes. */
  counts?: 'messages' | 'calls';
  /** Back to back while the window has room (limits over hours); else spread evenly. */
  burst?: boolean;
}

export interface PacingLimits {
  account: PacingWindow;
  channel: PacingWindow;
}

/** Shared through Redis by every worker, so bursts are spread out instead of drawing 429s. */
export class WindowPacing implements PlatformPacing {
  private readonly logger: Logger;
  private readonly botWindowMs: number;
  private readonly chatWindowMs: number;
  private readonly botIntervalMs: number;
  private readonly chatIntervalMs: number;
  readonly admitSpacingMs: number;
  private readonly roomy = new Set<number>();
  private readonly settles: [boolean, boolean];

  constructor(
    private readonly redis: Redis,
    private readonly config: AppConfig,
    private readonly limits: PacingLimits,
    name: string,
  ) {
    this.logger = new Logger(`${name} pacing`);
    this.botWindowMs = limits.account.windowMs + PACING_WINDOW_MARGIN_MS;
    this.chatWindowMs = limits.channel.windowMs + PACING_WINDOW_MARGIN_MS;
    // Slots spaced so a window's sends fill it exactly; a bursty window relies on admission.
    this.botIntervalMs = limits.account.burst ? 0 : this.botWindowMs / limits.account.limit;
    this.chatIntervalMs = limits.channel.burst ? 0 : this.chatWindowMs / limits.channel.limit;
    this.admitSpacingMs = this.botIntervalMs / 2;
    this.settles = [
      limits.account.windowMs >= SETTLE_WINDOW_MIN_MS,
      limits.channel.windowMs >= SETTLE_WINDOW_MIN_MS,
    ];
  }

  async reserve(request: ReserveRequest): Promise<PacingSlot> {
    const { accountId, channelId, holdsChannel = false, holder, admitIfNow = false } = request;
    const saveAfterMs = request.saveAfterMs ?? PACING_SAVE_AFTER_MS;
    const prefix = this.config.redisKeyPrefix;
    const [botCost] = this.costs(request.cost, request.calls);
    try {
      const [answer, wait, admitWait] = (await this.bounded(
        RESERVE.run(this.redis, [
          `${prefix}:pacing:bot:${accountId}`,
          `${prefix}:pacing:chat:${accountId}:${channelId}`,
          `${prefix}:pacing:saved:${holder ?? '-'}`,
          ...this.sentKeys(accountId, channelId),
          Date.now(),
          botCost,
          this.botIntervalMs,
          this.chatIntervalMs,
          holdsChannel ? 1 : 0,
          holder === undefined ? Number.MAX_SAFE_INTEGER : saveAfterMs,
          admitIfNow ? 1 : 0,
          ...this.admitArgs(request.cost, request.calls, holder),
        ]),
      )) as [number, number, number?];
      const waitMs = Math.max(0, Number(wait));
      if (answer === 1 && waitMs === 0) this.roomy.add(accountId);
      else this.roomy.delete(accountId);
      if (answer === 0) return { kind: 'channel_busy', waitMs };
      if (answer === 2) return { kind: 'saved', waitMs };
      if (admitWait === undefined) return { kind: 'booked', waitMs };
      return { kind: 'booked', waitMs, admitWaitMs: Math.max(0, Number(admitWait)) };
    } catch (error) {
      // Without Redis there is no shared pacing; sending beats stalling, and 429s are honoured.
      this.logger.warn(`Pacing unavailable: ${(error as Error).message}`);
      return { kind: 'booked', waitMs: 0, ...(admitIfNow ? { admitWaitMs: 0 } : {}) };
    }
  }

  async holdAccount(accountId: number, untilMs: number): Promise<void> {
    const key = `${this.config.redisKeyPrefix}:pacing:bot:${accountId}`;
    try {
      await this.bounded(HOLD.run(this.redis, [key, Date.now(), untilMs]));
    } catch (error) {
      this.logger.warn(`Pacing unavailable: ${(error as Error).message}`);
    }
  }

  hadRoom(accountId: number): boolean {
    return this.roomy.has(accountId);
  }

  accountsWithRoom(): number[] {
    return [...this.roomy];
  }

  async admit(
    accountId: number,
    channelId: string,
    cost: number,
    calls?: number,
    holder?: string,
  ): Promise<number> {
    try {
      const wait = await this.bounded(
        ADMIT.run(this.redis, [
          ...this.sentKeys(accountId, channelId),
          ...this.admitArgs(cost, calls, holder),
        ]),
      );
      return Math.max(0, Number(wait));
    } catch (error) {
      this.logger.warn(`Pacing unavailable: ${(error as Error).message}`);
      return 0;
    }
  }

  async settle(
    accountId: number,
    channelId: string,
    holder: string,
    cost: number,
    calls?: number,
  ): Promise<void> {
    if (!this.settles.some(Boolean)) return;
    const [sentBot, sentChat] = this.sentKeys(accountId, channelId);
    try {
      await this.bounded(
        SETTLE.run(this.redis, [
          this.admittedKey(holder),
          sentBot,
          sentChat,
          ...this.costs(cost, calls),
          ...this.settles.map((settles) => (settles ? 1 : 0)),
          Math.ceil(this.botWindowMs),
          Math.ceil(this.chatWindowMs),
        ]),
      );
    } catch (error) {
      this.logger.warn(`Pacing unavailable: ${(error as Error).message}`);
    }
  }

  async observe(accountId: number, channelId: string, report: RateLimitReport): Promise<void> {
    const [, , botBudget, chatBudget] = this.sentKeys(accountId, channelId);
    try {
      await this.bounded(
        OBSERVE.run(this.redis, [
          report.window === 'account' ? botBudget : chatBudget,
          report.remaining,
          report.resetAfterMs,
          SAME_WINDOW_TOLERANCE_MS,
        ]),
      );
    } catch (error) {
      this.logger.warn(`Pacing unavailable: ${(error as Error).message}`);
    }
  }

  private sentKeys(accountId: number, chatId: string): string[] {
    const prefix = this.config.redisKeyPrefix;
    return [
      `${prefix}:pacing:sent:${accountId}`,
      `${prefix}:pacing:sent:${accountId}:${chatId}`,
      `${prefix}:pacing:reported:${accountId}`,
      `${prefix}:pacing:reported:${accountId}:${chatId}`,
    ];
  }

  private costs(cost: number, calls = cost): [number, number] {
    return [
      this.limits.account.counts === 'calls' ? calls : cost,
      this.limits.channel.counts === 'calls' ? calls : cost,
    ];
  }

  private admittedKey(holder: string): string {
    return `${this.config.redisKeyPrefix}:pacing:admitted:${holder}`;
  }

  private admitArgs(cost: number, calls?: number, holder?: string): (number | string)[] {
    return [
      ...this.costs(cost, calls),
      this.limits.account.limit,
      this.botWindowMs,
      this.limits.channel.limit,
      this.chatWindowMs,
      this.admitSpacingMs,
      PACING_WINDOW_MARGIN_MS,
      holder !== undefined && this.settles.some(Boolean) ? this.admittedKey(holder) : '',
    ];
  }

  /** A connected Redis that does not answer would hold the send forever: bound it. */
  private bounded<T>(work: Promise<T>): Promise<T> {
    return withinTime(work, this.config.publication.queueCallTimeoutMs);
  }
}

import { Injectable, Logger } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { InjectRedis } from '../../redis/redis.module';
import { RedisScript } from '../../redis/redis-script';

/**
 * Sends are spaced this much wider than Telegram's limits allow, so that sends leaving a few
 * milliseconds late (a busy event loop, a slow connection) never add up to one too many in a
 * second or a minute (issue 14: exact spacing provoked 429s on 3% of sends at the ceiling).
 */
export const PACING_SAFETY_MARGIN = 0.07;

/**
 * Strict spacing over two keys (the bot, and the bot in one chat): each key keeps the moment it is
 * free again. Times are ms since the epoch, written with `%.3f` so Lua's number-to-string never
 * rounds them.
 *
 * A chat that is not free yet queues the send behind it on the chat's key alone and answers
 * {0, wait}: the bot is not touched, so one busy chat never delays another chat of its bot
 * (issue 14, defect a: booking the bot at the chat's future time stalled every chat of the bot).
 * The caller comes back at that time holding the chat's slot (ARGV[5] = 1).
 *
 * A free chat (or a held chat slot) books the bot: the send goes at the bot's next free moment,
 * the bot is held for `cost` intervals, and the chat for `cost` chat intervals after that send.
 * Answers {1, wait}.
 */
const RESERVE = new RedisScript(
  `
local now = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local botInterval = tonumber(ARGV[3])
local chatInterval = tonumber(ARGV[4])
local holdsChat = ARGV[5] == '1'
local chatFree = tonumber(redis.call('GET', KEYS[2]) or '0')
local function hold(key, free)
  redis.call('SET', key, string.format('%.3f', free), 'PX', math.ceil(free - now) + 1000)
end
if not holdsChat and chatFree > now then
  hold(KEYS[2], chatFree + cost * chatInterval)
  return {0, math.ceil(chatFree - now)}
end
local at = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
hold(KEYS[1], at + cost * botInterval)
hold(KEYS[2], math.max(chatFree, at + cost * chatInterval))
return {1, math.ceil(at - now)}
`,
  2,
);

/** What a reservation got. */
export interface PacingSlot {
  /** Ms from now until the slot. */
  waitMs: number;
  /**
   * True: the send may go after `waitMs` (the bot is booked for it). False: only the chat's slot
   * is held; ask again after `waitMs` with `holdsChat`.
   */
  sendAtSlot: boolean;
}

/**
 * Telegram's limits (about 30 messages a second per bot, 20 a minute per group or channel),
 * shared by every worker through Redis, so bursts are spread out instead of collecting 429s.
 */
@Injectable()
export class TelegramPacing {
  private readonly logger = new Logger(TelegramPacing.name);
  private readonly botIntervalMs: number;
  private readonly chatIntervalMs: number;

  constructor(
    @InjectRedis() private readonly redis: Redis,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    const { botMessagesPerSecond, chatMessagesPerMinute } = config.publication;
    this.botIntervalMs = (1000 / botMessagesPerSecond) * (1 + PACING_SAFETY_MARGIN);
    this.chatIntervalMs = (60_000 / chatMessagesPerMinute) * (1 + PACING_SAFETY_MARGIN);
  }

  /**
   * Reserves a slot for `cost` messages from the bot to the chat. `holdsChat`: the caller comes
   * back with the chat slot an earlier answer queued it for.
   */
  async reserve(
    accountId: number,
    chatId: string,
    cost: number,
    holdsChat = false,
  ): Promise<PacingSlot> {
    const prefix = this.config.redisKeyPrefix;
    try {
      const [sendAtSlot, wait] = (await RESERVE.run(this.redis, [
        `${prefix}:pacing:bot:${accountId}`,
        `${prefix}:pacing:chat:${accountId}:${chatId}`,
        Date.now(),
        cost,
        this.botIntervalMs,
        this.chatIntervalMs,
        holdsChat ? 1 : 0,
      ])) as [number, number];
      return { waitMs: Math.max(0, Number(wait)), sendAtSlot: sendAtSlot === 1 };
    } catch (error) {
      // Without Redis there is no shared pacing; sending beats stalling, and a 429 is still honoured.
      this.logger.warn(`Telegram pacing unavailable: ${(error as Error).message}`);
      return { waitMs: 0, sendAtSlot: true };
    }
  }
}

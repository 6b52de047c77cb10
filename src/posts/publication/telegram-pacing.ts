import { Injectable, Logger } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { InjectRedis } from '../../redis/redis.module';
import { RedisScript } from '../../redis/redis-script';

/**
 * Strict spacing over two keys (the bot, and the bot in one chat): each key keeps the moment it is
 * free again. A send of `cost` messages goes when both are free and holds each key for `cost`
 * intervals, so no second or minute ever sees more than its limit. Answers the wait in ms. Times
 * are ms since the epoch, written with `%.3f` so Lua's number-to-string never rounds them.
 */
const RESERVE = new RedisScript(
  `
local now = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local intervals = { tonumber(ARGV[3]), tonumber(ARGV[4]) }
local free = {}
local at = now
for i = 1, 2 do
  free[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
  if free[i] > at then at = free[i] end
end
for i = 1, 2 do
  local nxt = at + cost * intervals[i]
  redis.call('SET', KEYS[i], string.format('%.3f', nxt), 'PX', math.ceil(nxt - now) + 1000)
end
return math.ceil(at - now)
`,
  2,
);

/**
 * Telegram's limits (about 30 messages a second per bot, 20 a minute per group or channel),
 * shared by every worker through Redis, so bursts are spread out instead of collecting 429s.
 */
@Injectable()
export class TelegramPacing {
  private readonly logger = new Logger(TelegramPacing.name);

  constructor(
    @InjectRedis() private readonly redis: Redis,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** Reserves a slot for `cost` messages from the bot to the chat; the ms to wait for it. */
  async reserve(accountId: number, chatId: string, cost: number): Promise<number> {
    const { botMessagesPerSecond, chatMessagesPerMinute } = this.config.publication;
    const prefix = this.config.redisKeyPrefix;
    try {
      const wait = await RESERVE.run(this.redis, [
        `${prefix}:pacing:bot:${accountId}`,
        `${prefix}:pacing:chat:${accountId}:${chatId}`,
        Date.now(),
        cost,
        1000 / botMessagesPerSecond,
        60_000 / chatMessagesPerMinute,
      ]);
      return Math.max(0, Number(wait));
    } catch (error) {
      // Without Redis there is no shared pacing; sending beats stalling, and a 429 is still honoured.
      this.logger.warn(`Telegram pacing unavailable: ${(error as Error).message}`);
      return 0;
    }
  }
}

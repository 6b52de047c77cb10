import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { InjectRedis } from '../../../infrastructure/redis/redis.module';
import { WindowPacing } from '../window-pacing';

/** Discord's published limits: 50 requests a second per bot, 5 messages per 5 s per channel. */
export const DISCORD_PACING = {
  account: { limit: 50, windowMs: 1_000 },
  channel: { limit: 5, windowMs: 5_000 },
};

/** Discord's limits, shared by every worker; a 429 still waits its retry_after. */
@Injectable()
export class DiscordPacing extends WindowPacing {
  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    super(redis, config, DISCORD_PACING, 'Discord');
  }
}

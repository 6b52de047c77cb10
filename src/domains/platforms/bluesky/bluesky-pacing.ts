import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { InjectRedis } from '../../../infrastructure/redis/redis.module';
import { WindowPacing } from '../window-pacing';

/** 5000 points an hour per account, 3 per record; the daily limit is honoured by its 429. */
export const BLUESKY_POSTS_PER_HOUR = Math.floor(5000 / 3);

@Injectable()
export class BlueskyPacing extends WindowPacing {
  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    const hourly = { limit: BLUESKY_POSTS_PER_HOUR, windowMs: 3_600_000, burst: true };
    super(redis, config, { account: hourly, channel: hourly }, 'Bluesky');
  }
}

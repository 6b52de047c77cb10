import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { InjectRedis } from '../../../infrastructure/redis/redis.module';
import { WindowPacing } from '../window-pacing';

/**
 * Bluesky's published write limit: 5000 points an hour per account, a created record costing 3,
 * so 1666 posts an hour. An account's one channel is its own feed, so both windows are the
 * account's. The daily limit (35,000 points) is honoured through the service's 429.
 */
export const BLUESKY_POSTS_PER_HOUR = Math.floor(5000 / 3);

@Injectable()
export class BlueskyPacing extends WindowPacing {
  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    const hourly = { limit: BLUESKY_POSTS_PER_HOUR, windowMs: 3_600_000, burst: true };
    super(redis, config, { account: hourly, channel: hourly }, 'Bluesky');
  }
}

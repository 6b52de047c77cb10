import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { InjectRedis } from '../../../infrastructure/redis/redis.module';
import { WindowPacing } from '../window-pacing';

/** What a record costs of the account's hourly write points. */
export const BLUESKY_POINTS_PER_RECORD = 3;

/** 5000 points an hour per account, 3 per record; the daily limit is honoured by its 429. */
export const BLUESKY_POSTS_PER_HOUR = Math.floor(5000 / BLUESKY_POINTS_PER_RECORD);

@Injectable()
export class BlueskyPacing extends WindowPacing {
  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    const hourly = { limit: BLUESKY_POSTS_PER_HOUR, windowMs: 3_600_000, burst: true };
    super(redis, config, { account: hourly, channel: hourly }, 'Bluesky');
  }
}

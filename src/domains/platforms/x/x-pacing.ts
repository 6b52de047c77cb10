import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { InjectRedis } from '../../../infrastructure/redis/redis.module';
import { WindowPacing } from '../window-pacing';

/** X's published limit on `POST /2/tweets`: 100 per user in 15 minutes. */
export const X_POSTS = { limit: 100, windowMs: 15 * 60 * 1000, burst: true };

/** The user's one channel is its timeline: the same window stands for both. */
@Injectable()
export class XPacing extends WindowPacing {
  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    super(redis, config, { account: X_POSTS, channel: X_POSTS }, 'X');
  }
}

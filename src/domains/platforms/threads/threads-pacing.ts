import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { InjectRedis } from '../../../infrastructure/redis/redis.module';
import { WindowPacing } from '../window-pacing';

/** Per profile in any 24 hours; its own count, read before each post, covers the rest. */
export const THREADS_POSTS = { limit: 250, windowMs: 24 * 3_600_000, burst: true };

@Injectable()
export class ThreadsPacing extends WindowPacing {
  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    super(redis, config, { account: THREADS_POSTS, channel: THREADS_POSTS }, 'Threads');
  }
}

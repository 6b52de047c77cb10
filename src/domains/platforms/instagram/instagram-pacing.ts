import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { InjectRedis } from '../../../infrastructure/redis/redis.module';
import { WindowPacing } from '../window-pacing';

/** 100 posts through the API per Instagram account in any 24 hours; its own count is read before each. */
export const INSTAGRAM_POSTS = { limit: 100, windowMs: 24 * 3_600_000, burst: true };

/** Every account of one connected user together: Meta's floor of 200 calls an hour per user. */
export const INSTAGRAM_USER = { limit: 200, windowMs: 3_600_000, burst: true };

@Injectable()
export class InstagramPacing extends WindowPacing {
  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    super(redis, config, { account: INSTAGRAM_USER, channel: INSTAGRAM_POSTS }, 'Instagram');
  }
}

import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { InjectRedis } from '../../../infrastructure/redis/redis.module';
import { WindowPacing } from '../window-pacing';

/** LinkedIn's published limit on creating posts: 150 a day per member, and per organization. */
export const LINKEDIN_POSTS = { limit: 150, windowMs: 24 * 60 * 60 * 1000, burst: true };

@Injectable()
export class LinkedInPacing extends WindowPacing {
  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    super(redis, config, { account: LINKEDIN_POSTS, channel: LINKEDIN_POSTS }, 'LinkedIn');
  }
}

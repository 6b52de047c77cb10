import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { InjectRedis } from '../../../infrastructure/redis/redis.module';
import { WindowPacing } from '../window-pacing';

/**
 * Meta gives a page 4,800 calls per engaged user in 24 hours: 200 an hour for a page with one.
 * Herald keeps every page (and every connection) within that floor, counting each call a post
 * makes (an album's photos and its feed post); a limit answered anyway is waited out as Meta says.
 */
export const FACEBOOK_PAGE_CALLS = { limit: 200, windowMs: 3_600_000, burst: true };

@Injectable()
export class FacebookPacing extends WindowPacing {
  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    super(
      redis,
      config,
      { account: FACEBOOK_PAGE_CALLS, channel: FACEBOOK_PAGE_CALLS },
      'Facebook',
    );
  }
}

import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { InjectRedis } from '../../../infrastructure/redis/redis.module';
import { WindowPacing } from '../window-pacing';

/** Meta's page limit for one engaged user (4,800 calls in 24 h): 200 calls an hour. */
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

import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { InjectRedis } from '../../../infrastructure/redis/redis.module';
import { WindowPacing } from '../window-pacing';

/** Mastodon's published limit: 300 statuses per account in 3 hours. */
export const MASTODON_STATUSES = { limit: 300, windowMs: 3 * 60 * 60 * 1000, burst: true };

/** 300 requests per token in 5 minutes, every call counted (polls through the instance's count). */
export const MASTODON_REQUESTS = {
  limit: 300,
  windowMs: 5 * 60 * 1000,
  burst: true,
  counts: 'calls' as const,
};

/** The request window stands for the channel's (its one channel is its timeline). */
@Injectable()
export class MastodonPacing extends WindowPacing {
  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    super(redis, config, { account: MASTODON_STATUSES, channel: MASTODON_REQUESTS }, 'Mastodon');
  }
}

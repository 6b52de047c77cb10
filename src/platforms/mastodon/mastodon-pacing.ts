import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { InjectRedis } from '../../redis/redis.module';
import { WindowPacing } from '../window-pacing';

/** Mastodon's published limit on statuses: 300 per account in 3 hours. */
export const MASTODON_STATUSES = { limit: 300, windowMs: 3 * 60 * 60 * 1000, burst: true };

/**
 * Mastodon's limit on statuses, kept per account and shared by every worker. The account's one
 * channel is its own timeline, so the channel's window is the account's.
 */
@Injectable()
export class MastodonPacing extends WindowPacing {
  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    super(redis, config, { account: MASTODON_STATUSES, channel: MASTODON_STATUSES }, 'Mastodon');
  }
}

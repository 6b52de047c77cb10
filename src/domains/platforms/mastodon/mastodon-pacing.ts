import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { InjectRedis } from '../../../infrastructure/redis/redis.module';
import { WindowPacing } from '../window-pacing';

/** Mastodon's published limit on statuses: 300 per account in 3 hours. */
export const MASTODON_STATUSES = { limit: 300, windowMs: 3 * 60 * 60 * 1000, burst: true };

/**
 * Mastodon's limit on every request of an account: 300 in 5 minutes. A status is one of them, and
 * its media and the account's other calls take some too: statuses keep to 200 of them, so a burst of
 * statuses leaves room for their uploads and processing polls.
 */
export const MASTODON_REQUESTS = { limit: 200, windowMs: 5 * 60 * 1000, burst: true };

/**
 * Mastodon's limits, kept per account and shared by every worker: statuses in 3 hours, and the
 * account's requests in 5 minutes (its one channel is its own timeline, so that window stands in
 * the channel's place). A 429 still waits until its X-RateLimit-Reset.
 */
@Injectable()
export class MastodonPacing extends WindowPacing {
  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    super(redis, config, { account: MASTODON_STATUSES, channel: MASTODON_REQUESTS }, 'Mastodon');
  }
}

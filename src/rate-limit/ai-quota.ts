import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage } from '@nestjs/throttler';
import type { Response } from 'express';
import type { AppConfig } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { AppError } from '../errors/error-codes';
import { Metrics } from '../metrics/metrics.service';
import { rateLimitHeaders } from './rate-limit.guard';
import {
  RateLimitRecord,
  RateLimitStoreUnavailable,
  RedisRateLimitStorage,
  retryAfterSeconds,
} from './redis-rate-limit.storage';

export const AI_QUOTA_MESSAGE = 'The hourly quota of AI generations is used up; retry later';
/** The `category` label of `herald_rate_limited_total` for AI generations. */
export const AI_QUOTA_CATEGORY = 'ai_generation';
const HOUR_MS = 3_600_000;

/**
 * AI generations per user and hour (AI_GENERATIONS_PER_HOUR), each one a paid call to the
 * provider. Counted once the request has passed every check, so a refused request costs none;
 * its answer carries this quota's X-RateLimit-* headers.
 */
@Injectable()
export class AiQuota {
  constructor(
    @InjectThrottlerStorage() private readonly storage: RedisRateLimitStorage,
    @InjectConfig() private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  async consume(userId: number, res: Response): Promise<void> {
    const { enabled, aiGenerationsPerHour: limit } = this.config.rateLimits;
    if (!enabled) return;
    let record: RateLimitRecord;
    try {
      record = await this.storage.increment(`user:${AI_QUOTA_CATEGORY}:${userId}`, HOUR_MS, limit);
    } catch (error) {
      if (error instanceof RateLimitStoreUnavailable) return;
      throw error;
    }
    for (const [name, value] of Object.entries(rateLimitHeaders(limit, record)))
      res.setHeader(name, value);
    if (!record.isBlocked) return;
    this.metrics.rateLimit(AI_QUOTA_CATEGORY);
    throw new AppError('rate_limit_exceeded', AI_QUOTA_MESSAGE, undefined, {
      'Retry-After': String(retryAfterSeconds(record.msToReset)),
    });
  }
}

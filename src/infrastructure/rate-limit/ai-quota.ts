import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage } from '@nestjs/throttler';
import type { Response } from 'express';
import type { AppConfig } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { Metrics } from '../metrics/metrics.service';
import { enforceWindow } from '../../access/rate-limit.guard';
import { RedisRateLimitStorage } from './redis-rate-limit.storage';

export const AI_QUOTA_MESSAGE = 'The hourly quota of AI generations is used up; retry later';
/** The `category` label of `herald_rate_limited_total` for AI generations. */
export const AI_QUOTA_CATEGORY = 'ai_generation';
const HOUR_MS = 3_600_000;

/** Each generation is a paid call: counted only once every check has passed. */
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
    const key = `user:${AI_QUOTA_CATEGORY}:${userId}`;
    const record = await this.storage.countOrPass(key, HOUR_MS, limit);
    if (record === null) return;
    enforceWindow(res, this.metrics, {
      limit,
      record,
      category: AI_QUOTA_CATEGORY,
      message: AI_QUOTA_MESSAGE,
    });
  }
}

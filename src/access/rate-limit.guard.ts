import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
} from '@nestjs/throttler';
import type { Response } from 'express';
import type { HeraldRequest } from './principal';
import { routeRules } from './route-metadata';
import type { AppConfig } from '../infrastructure/config/config';
import { InjectConfig } from '../infrastructure/config/config.module';
import { AppError } from '../http/errors/error-codes';
import { Metrics } from '../infrastructure/metrics/metrics.service';
import {
  RateLimitRecord,
  rateLimitExceeded,
  RedisRateLimitStorage,
} from '../infrastructure/rate-limit/redis-rate-limit.storage';

export const RATE_LIMIT_MESSAGE =
  'Too many requests for this API key; retry after the window resets';
export const APP_RATE_LIMIT_MESSAGE =
  'Too many requests for this user; retry after the window resets';
export const APP_RATE_LIMIT_CATEGORY = 'application';

export function rateLimitHeaders(limit: number, record: RateLimitRecord): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, limit - record.totalHits)),
    'X-RateLimit-Reset': String(Math.ceil(record.resetAtMs / 1000)),
  };
}

/** Past the limit, counts the refusal under `category` and throws the 429 with `message`. */
export function enforceWindow(
  res: Response,
  metrics: Metrics,
  window: { limit: number; record: RateLimitRecord; category: string; message: string },
): void {
  const { limit, record, category, message } = window;
  for (const [name, value] of Object.entries(rateLimitHeaders(limit, record)))
    res.setHeader(name, value);
  if (!record.isBlocked) return;
  metrics.rateLimit(category);
  throw rateLimitExceeded(message, record.msToReset);
}

/** Per API key and category through Redis, with our own tracker, counters and headers. */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly storage: RedisRateLimitStorage,
    reflector: Reflector,
    @InjectConfig() private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    super(options, storage, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const rules = routeRules(this.reflector, context);
    if (!this.config.rateLimits.enabled) return true;
    if (rules.authKind === 'session') return this.countUser(context);
    if (rules.authKind !== 'api_key') return true;
    // An operation is counted in its own route's category when it runs, not here as well.
    const body = context.switchToHttp().getRequest<HeraldRequest>().body;
    if (rules.rulesPerOperation?.(body)) return true;
    const category = rules.rateLimitCategory;
    const throttler = this.throttlers.find((candidate) => candidate.name === category);
    // Fail closed: a category without a configured limit is a programming error, not a free pass.
    if (!throttler) throw new Error(`No rate limit is configured for category "${category}"`);
    const key = this.generateKey(context, trackerOf(context.switchToHttp().getRequest()), category);
    return this.count(context, key, throttler.ttl as number, {
      limit: throttler.limit as number,
      category,
      message: RATE_LIMIT_MESSAGE,
    });
  }

  private countUser(context: ExecutionContext): Promise<boolean> {
    const userId = context.switchToHttp().getRequest<HeraldRequest>().principal?.user.id;
    if (userId === undefined) throw AppError.unauthorized();
    const { appRequestsPerMinute, windowMs } = this.config.rateLimits;
    return this.count(context, `user:${APP_RATE_LIMIT_CATEGORY}:${userId}`, windowMs, {
      limit: appRequestsPerMinute,
      category: APP_RATE_LIMIT_CATEGORY,
      message: APP_RATE_LIMIT_MESSAGE,
    });
  }

  private async count(
    context: ExecutionContext,
    key: string,
    ttl: number,
    window: { limit: number; category: string; message: string },
  ): Promise<boolean> {
    // Fail open (docs/api-rules.md#rate-limits); the storage logs the outage.
    const record = await this.storage.countOrPass(key, ttl, window.limit);
    if (record === null) return true;
    enforceWindow(context.switchToHttp().getResponse<Response>(), this.metrics, {
      ...window,
      record,
    });
    return true;
  }

  protected override generateKey(
    _context: ExecutionContext,
    tracker: string,
    name: string,
  ): string {
    return `key:${name}:${tracker}`;
  }
}

/** ApiKeyGuard ran first, so a request here always has one. */
function trackerOf(req: Record<string, unknown>): string {
  const publicId = (req as unknown as HeraldRequest).principal?.apiKey?.publicId;
  if (!publicId) throw AppError.unauthorized();
  return publicId;
}

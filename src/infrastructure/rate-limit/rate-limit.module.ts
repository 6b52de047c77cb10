import { Global, Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type Redis from 'ioredis';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { REDIS } from '../redis/redis.module';
import { AiQuota } from './ai-quota';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { categoryLimits, RATE_LIMIT_CATEGORIES } from '../../access/rate-limit-category';
import { RedisRateLimitStorage } from './redis-rate-limit.storage';
import { SignInLimiter } from './sign-in-limiter';

/** One named throttler per category (docs/api-rules.md#rate-limits); the guard is an APP_GUARD. */
@Global()
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG, REDIS],
      useFactory: (config: AppConfig, redis: Redis) => {
        const limits = categoryLimits(config.rateLimits);
        return {
          throttlers: RATE_LIMIT_CATEGORIES.map((name) => ({
            name,
            limit: limits[name],
            ttl: config.rateLimits.windowMs,
          })),
          storage: new RedisRateLimitStorage(redis, config.redisKeyPrefix),
        };
      },
    }),
  ],
  providers: [AuthFailureLimiter, SignInLimiter, AiQuota],
  exports: [AuthFailureLimiter, SignInLimiter, AiQuota],
})
export class RateLimitModule {}

import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage } from '@nestjs/throttler';
import type { Request } from 'express';
import { createHash } from 'node:crypto';
import type { AppConfig } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { Metrics } from '../metrics/metrics.service';
import { clientAddress } from './auth-failure-limiter';
import { normalizeEmail } from '../../domains/users/users.service';
import {
  RateLimitRecord,
  rateLimitExceeded,
  RedisRateLimitStorage,
} from './redis-rate-limit.storage';

export const SIGN_IN_LIMIT_MESSAGE = 'Too many failed sign-ins; retry later';
export const REGISTRATION_LIMIT_MESSAGE = 'Too many registrations from this address; retry later';
export const SIGN_IN_CATEGORY = 'sign_in';
export const REGISTRATION_CATEGORY = 'registration';
export const OAUTH_CALLBACK_CATEGORY = 'oauth_callback';
export const OAUTH_CALLBACK_LIMIT_MESSAGE =
  'Too many unknown connection links from this address; retry later';
const HOUR_MS = 3_600_000;

/** Counted before the check and refunded on success, so concurrent guesses never pass the limit. */
@Injectable()
export class SignInLimiter {
  constructor(
    @InjectThrottlerStorage() private readonly storage: RedisRateLimitStorage,
    @InjectConfig() private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  /** `check` answers the user, or null when wrong; throws 429 when either count is full. */
  async attempt<T>(
    request: Request,
    account: string,
    check: () => Promise<T | null>,
  ): Promise<T | null> {
    const limits = this.config.rateLimits;
    if (!limits.enabled) return check();
    const counters = [
      { key: `signin:account:${accountKey(account)}`, limit: limits.signInFailuresPerAccount },
      { key: `signin:address:${clientAddress(request)}`, limit: limits.signInFailuresPerAddress },
    ];
    const counted = await Promise.all(
      counters.map(({ key, limit }) => this.storage.countOrPass(key, limits.signInWindowMs, limit)),
    );
    if (counted.includes(null)) return check();
    const records = counted as RateLimitRecord[];
    const blocked = records.filter((record) => record.isBlocked);
    if (blocked.length > 0) {
      // A refused attempt checked no password: it is no failure.
      await this.refund(counters.map(({ key }) => key));
      this.metrics.rateLimit(SIGN_IN_CATEGORY);
      throw rateLimitExceeded(SIGN_IN_LIMIT_MESSAGE, Math.max(...blocked.map((r) => r.msToReset)));
    }
    const user = await check();
    if (user !== null) await this.refund(counters.map(({ key }) => key));
    return user;
  }

  /** An OAuth callback's state lookup (null: unknown), counted per address like failed sign-ins. */
  async stateGuess<T>(request: Request, check: () => Promise<T | null>): Promise<T | null> {
    const limits = this.config.rateLimits;
    if (!limits.enabled) return check();
    const key = `oauth:address:${clientAddress(request)}`;
    const record = await this.storage.countOrPass(
      key,
      limits.signInWindowMs,
      limits.signInFailuresPerAddress,
    );
    if (record === null) return check();
    if (record.isBlocked) {
      await this.refund([key]);
      this.metrics.rateLimit(OAUTH_CALLBACK_CATEGORY);
      throw rateLimitExceeded(OAUTH_CALLBACK_LIMIT_MESSAGE, record.msToReset);
    }
    const found = await check();
    if (found !== null) await this.refund([key]);
    return found;
  }

  async registration(request: Request): Promise<void> {
    const limits = this.config.rateLimits;
    if (!limits.enabled) return;
    const record = await this.storage.countOrPass(
      `register:address:${clientAddress(request)}`,
      HOUR_MS,
      limits.registrationsPerAddressPerHour,
    );
    if (record === null) return;
    if (!record.isBlocked) return;
    this.metrics.rateLimit(REGISTRATION_CATEGORY);
    throw rateLimitExceeded(REGISTRATION_LIMIT_MESSAGE, record.msToReset);
  }

  private async refund(keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.storage.refund(key)));
  }
}

/** Hashed: Redis keys never carry an address in clear. */
function accountKey(email: string): string {
  return createHash('sha256').update(normalizeEmail(email)).digest('base64url');
}

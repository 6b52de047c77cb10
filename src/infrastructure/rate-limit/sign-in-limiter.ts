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
/** The `category` labels of `herald_rate_limited_total` for these refusals. */
export const SIGN_IN_CATEGORY = 'sign_in';
export const REGISTRATION_CATEGORY = 'registration';
export const OAUTH_CALLBACK_CATEGORY = 'oauth_callback';
export const OAUTH_CALLBACK_LIMIT_MESSAGE =
  'Too many unknown connection links from this address; retry later';
const HOUR_MS = 3_600_000;

/**
 * Limits on password guessing, shared by every instance through Redis: failed sign-ins are
 * counted per account and per client address in a fixed window, and once either count is full,
 * every sign-in to that account or from that address is refused with 429, the right password
 * too, until the window ends. Registrations are counted per address and hour.
 *
 * An attempt takes its place in both counts before the password is checked and gives it back
 * when the password was right, so attempts sent at the same moment never get past the limit.
 * A Redis that does not answer lets sign-in through, as the other limits do.
 */
@Injectable()
export class SignInLimiter {
  constructor(
    @InjectThrottlerStorage() private readonly storage: RedisRateLimitStorage,
    @InjectConfig() private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  /**
   * Runs `check` (a password check answering the user, or null when wrong) within the limits of
   * `account` (an email) and the request's address; throws 429 when either is full.
   */
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

  /**
   * Runs `check` (an OAuth callback's state lookup: the state, or null when it is unknown) within
   * the request address's limit of failed guesses, counted like failed sign-ins.
   */
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

  /** Counts a registration from the request's address; throws 429 past the hourly limit. */
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

/** The account's email, normalised and hashed: Redis keys never carry an address in clear. */
function accountKey(email: string): string {
  return createHash('sha256').update(normalizeEmail(email)).digest('base64url');
}

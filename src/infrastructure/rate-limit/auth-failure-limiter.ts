import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, normalizeIp } from '@nestjs/throttler';
import type { Request } from 'express';
import type { AppConfig } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { AppError } from '../../http/errors/error-codes';
import { Metrics } from '../metrics/metrics.service';
import { rateLimitExceeded, RedisRateLimitStorage } from './redis-rate-limit.storage';

export const AUTH_FAILURE_MESSAGE =
  'Too many failed authentications from this address; retry later';
export const AUTH_FAILURE_CATEGORY = 'auth_failures';
/** One subscriber usually holds a whole /64. */
const IPV6_SUBNET_PREFIX = 64;
const MAX_REMEMBERED_BLOCKS = 10_000;

/** Per client IP in Redis, 429 past the limit; a known-blocked address is refused from memory. */
@Injectable()
export class AuthFailureLimiter {
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    @InjectThrottlerStorage() private readonly storage: RedisRateLimitStorage,
    @InjectConfig() private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  /** Costs no Redis round trip. */
  assertNotBlocked(request: Request): void {
    if (this.blockedUntil.size === 0) return;
    const address = clientAddress(request);
    const until = this.blockedUntil.get(address);
    if (until === undefined) return;
    const left = until - Date.now();
    if (left <= 0) {
      this.blockedUntil.delete(address);
      return;
    }
    this.metrics.rateLimit(AUTH_FAILURE_CATEGORY);
    throw rateLimitExceeded(AUTH_FAILURE_MESSAGE, left);
  }

  /** Answers the error to send (401, or 429 past the limit). */
  async failed(request: Request, error: unknown): Promise<unknown> {
    if (!(error instanceof AppError) || error.code !== 'unauthorized') return error;
    if (!this.config.rateLimits.enabled) return error;
    const address = clientAddress(request);
    const { windowMs, authFailuresPerIp } = this.config.rateLimits;
    const record = await this.storage.countOrPass(
      `auth-failures:${address}`,
      windowMs,
      authFailuresPerIp,
    );
    // Fail open, as for the key limits: the 401 stands.
    if (record === null || !record.isBlocked) return error;
    this.remember(address, Date.now() + record.msToReset);
    this.metrics.rateLimit(AUTH_FAILURE_CATEGORY);
    return rateLimitExceeded(AUTH_FAILURE_MESSAGE, record.msToReset);
  }

  private remember(address: string, until: number): void {
    if (this.blockedUntil.size >= MAX_REMEMBERED_BLOCKS) {
      const now = Date.now();
      for (const [known, end] of this.blockedUntil) if (end <= now) this.blockedUntil.delete(known);
      if (this.blockedUntil.size >= MAX_REMEMBERED_BLOCKS) this.blockedUntil.clear();
    }
    this.blockedUntil.set(address, until);
  }
}

/** IPv4 whole, IPv6 per /64. */
export function clientAddress(request: Request): string {
  const ip = request.ip ?? request.socket.remoteAddress ?? 'unknown';
  return normalizeIp(ip, IPV6_SUBNET_PREFIX);
}

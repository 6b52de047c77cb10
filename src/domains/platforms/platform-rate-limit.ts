import { AppError } from '../../http/errors/error-codes';

/** When a platform's 429 names no reset, the wait suggested to the caller. */
const DEFAULT_RETRY_AFTER_SECONDS = 60;

/**
 * A platform's own rate-limit answer while connecting an account or adding a channel: the platform
 * was reached and said "later", so the caller gets `429 rate_limit_exceeded` with `Retry-After`
 * (whole seconds, at least 1) from the platform's reset, not `502 <platform>_unavailable`.
 */
export function platformRateLimited(displayName: string, retryAfterMs: number | null): AppError {
  const seconds =
    retryAfterMs === null
      ? DEFAULT_RETRY_AFTER_SECONDS
      : Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError(
    'rate_limit_exceeded',
    `${displayName} is limiting requests for this account; try again in ${seconds} s`,
    undefined,
    { 'Retry-After': String(seconds) },
  );
}

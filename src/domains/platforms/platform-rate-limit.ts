import { AppError } from '../../http/errors/error-codes';

/** When a platform's 429 names no reset, the wait suggested to the caller. */
const DEFAULT_RETRY_AFTER_SECONDS = 60;

/** The platform said "later": 429 with Retry-After, not `502 <platform>_unavailable`. */
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

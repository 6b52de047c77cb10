/**
 * What a platform's answer says of its own budget (`X-RateLimit-*`, `ratelimit-*`,
 * `x-rate-limit-*`, Meta's usage headers): read back into the pacing, so sends neither leave that
 * budget unused nor meet a 429 the platform announced (docs/performance.md#pacing).
 */
export interface RateLimitReport {
  /**
   * Which of the platform's two pacing windows the answer was counted in: `account` (a bot's, a
   * token's, a user's) or `channel` (one channel of the account, as a per-channel message bucket).
   */
  window: 'account' | 'channel';
  /** How many more the platform allows in its current window, counted in that window's unit. */
  remaining: number;
  /** Ms until the platform's window resets. */
  resetAfterMs: number;
}

/** Called by a platform client with each answer's budget; never throws, never waits. */
export type RateLimitObserver = (report: RateLimitReport) => void;

/** For calls made outside a send (connecting, adding a channel): nothing to pace. */
export const UNPACED: RateLimitObserver = () => undefined;

/** A report from header values, or null when they are absent or unreadable. */
export function rateLimitReport(
  window: RateLimitReport['window'],
  remaining: string | null | undefined,
  resetAfterMs: number | null,
): RateLimitReport | null {
  if (remaining === null || remaining === undefined || remaining.trim() === '') return null;
  const left = Number(remaining);
  if (!Number.isFinite(left) || left < 0 || resetAfterMs === null) return null;
  if (!Number.isFinite(resetAfterMs) || resetAfterMs < 0) return null;
  return { window, remaining: Math.floor(left), resetAfterMs: Math.ceil(resetAfterMs) };
}

/**
 * Ms until a reset written as epoch seconds or as an HTTP date, counted from the
 * answer's own `Date` when it has one, so a skewed clock on either side never shortens the wait.
 */
export function msUntilReset(
  reset: string | null | undefined,
  answeredAt: string | null | undefined,
  now = Date.now(),
): number | null {
  if (reset === null || reset === undefined || reset.trim() === '') return null;
  const epochSeconds = Number(reset);
  const resetMs = Number.isFinite(epochSeconds) ? epochSeconds * 1000 : Date.parse(reset);
  if (Number.isNaN(resetMs)) return null;
  const answered = Date.parse(answeredAt ?? '');
  return Math.max(0, resetMs - (Number.isNaN(answered) ? now : answered));
}

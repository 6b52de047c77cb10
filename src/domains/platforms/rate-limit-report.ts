/** An answer's rate-limit headers, read back into the pacing (docs/performance.md#pacing). */
export interface RateLimitReport {
  /** The pacing window the answer was counted in: the account's, or one channel's. */
  window: 'account' | 'channel';
  /** How many more the platform allows in its current window, in that window's unit. */
  remaining: number;
  resetAfterMs: number;
}

/** Called by a platform client with each answer's budget; never throws, never waits. */
export type RateLimitObserver = (report: RateLimitReport) => void;

/** For calls made outside a send (connecting, adding a channel). */
export const UNPACED: RateLimitObserver = () => undefined;

/** Null when the header values are absent or unreadable. */
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

/** A reset in epoch seconds or as a date, counted from the answer's own `Date` when it has one. */
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

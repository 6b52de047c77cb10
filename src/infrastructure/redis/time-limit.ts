import { Deadlines } from './deadlines';

/** One list of waits per time limit: waits of one length end in the order they began. */
const deadlinesByLimit = new Map<number, Deadlines>();

/**
 * Settles with `work`, or rejects with `timedOut()` (by default "Redis did not answer in … ms")
 * once `limitMs` passes first. A hung Redis keeps its connection open, and Bull's clients hold
 * commands while Redis is away, so an unbounded call would wait forever. Every call with the same
 * limit shares one timer (deadlines.ts): the rate limiter's script runs once per request, Bull's
 * calls and the pacing scripts once or more per post (docs/performance.md#shared-deadlines). The
 * timer does not keep the process up; the call's Redis connection does.
 */
export function withinTime<T>(
  work: Promise<T>,
  limitMs: number,
  timedOut?: () => Error,
): Promise<T> {
  let deadlines = deadlinesByLimit.get(limitMs);
  if (!deadlines) {
    deadlines = new Deadlines(limitMs, () => new Error(`Redis did not answer in ${limitMs} ms`));
    deadlinesByLimit.set(limitMs, deadlines);
  }
  return deadlines.within(work, timedOut);
}

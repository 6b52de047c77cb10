import { Deadlines } from './deadlines';

/** One list of waits per time limit: waits of one length end in the order they began. */
const deadlinesByLimit = new Map<number, Deadlines>();

/**
 * Settles with `work`, or rejects with `timedOut()` once `limitMs` passes first. A hung Redis keeps
 * its connection open, and Bull's clients hold commands while Redis is away, so an unbounded call
 * would wait forever. Every call with the same limit shares one timer (deadlines.ts): Bull's calls
 * and the pacing scripts run once or more per post, and a timer and a race of two promises each
 * showed in the api's and the worker's profiles. The timer does not keep the process up; the call's
 * Redis connection does.
 */
export function withinTime<T>(
  work: Promise<T>,
  limitMs: number,
  timedOut: () => Error = () => new Error(`Redis did not answer in ${limitMs} ms`),
): Promise<T> {
  let deadlines = deadlinesByLimit.get(limitMs);
  if (!deadlines) {
    deadlines = new Deadlines(limitMs, timedOut);
    deadlinesByLimit.set(limitMs, deadlines);
  }
  return deadlines.within(work, timedOut);
}

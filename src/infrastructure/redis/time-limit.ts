import { Deadlines } from './deadlines';

/** Waits of one length end in the order they began. */
const deadlinesByLimit = new Map<number, Deadlines>();

/** A hung Redis keeps its connection and Bull holds commands while it is away: bound every call. */
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

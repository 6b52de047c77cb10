/**
 * Settles with `work`, or rejects with `timedOut()` once `limitMs` passes first. A hung Redis keeps
 * its connection open, and Bull's clients hold commands while Redis is away, so an unbounded call
 * would wait forever. The timer is cleared as soon as `work` settles.
 */
export function withinTime<T>(
  work: Promise<T>,
  limitMs: number,
  timedOut: () => Error = () => new Error(`Redis did not answer in ${limitMs} ms`),
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), limitMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

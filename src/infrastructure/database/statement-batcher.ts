/**
 * Coalesces calls of one statement into one statement for several rows: fewer round trips and
 * commits per post when the queue is deep (docs/performance.md#statement-batching). A call made
 * while no batch is in flight goes at once, alone, so an idle worker waits for nothing; calls made
 * while a batch is in flight wait for it and then go together, up to `maxBatch` in one statement.
 * The batch size follows the load by itself: one at a time when the worker is quiet, dozens when
 * many jobs are in hand.
 *
 * Each row keeps its own guard in the batched statement (the same WHERE as the single one), so a
 * row whose guard fails only gets its own "not done" answer. Two calls with the same `key` (the
 * same post) never share a batch: a statement that reads other rows of that post (e.g. "every
 * other target published") must not race a sibling row changed by the same statement. A batch that
 * PostgreSQL refused (so nothing of it was written) is run again one call at a time, so a call
 * fails only when its own statement does; any other failure (the connection dropped, a time-out,
 * after which the statement may still have committed) fails every call, as the single statement
 * would have.
 */
export class StatementBatcher<I, O> {
  private pending: { item: I; resolve: (value: O) => void; reject: (error: unknown) => void }[] =
    [];
  private inFlight = false;

  constructor(
    /** Runs one statement for `items` and answers one result per item, in their order. */
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly options: { maxBatch: number; key: (item: I) => unknown },
  ) {}

  call(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.flush();
    });
  }

  private flush(): void {
    if (this.inFlight || this.pending.length === 0) return;
    const batch: typeof this.pending = [];
    const keys = new Set<unknown>();
    const rest: typeof this.pending = [];
    for (const call of this.pending) {
      const key = this.options.key(call.item);
      if (batch.length < this.options.maxBatch && !keys.has(key)) {
        keys.add(key);
        batch.push(call);
      } else rest.push(call);
    }
    this.pending = rest;
    this.inFlight = true;
    void this.runBatch(batch);
  }

  private async runBatch(batch: typeof this.pending): Promise<void> {
    try {
      const results = await this.run(batch.map((call) => call.item));
      batch.forEach((call, i) => call.resolve(results[i]));
    } catch (error) {
      if (batch.length === 1 || !rolledBack(error)) for (const call of batch) call.reject(error);
      // Each call again on its own, so that what failed is only the failing row's (a deadlock
      // between two batches, a row that breaks a constraint) and not its neighbours'.
      else
        await Promise.all(
          batch.map((call) =>
            this.run([call.item]).then(([result]) => call.resolve(result), call.reject),
          ),
        );
    } finally {
      this.inFlight = false;
      this.flush();
    }
  }
}

/**
 * PostgreSQL answered the statement with an error (a SQLSTATE such as 40P01 deadlock_detected):
 * its implicit transaction was rolled back. A client-side failure carries no SQLSTATE.
 */
function rolledBack(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

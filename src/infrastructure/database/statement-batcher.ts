/** Coalesces concurrent calls of a statement (docs/performance.md#statement-batching). */
export class StatementBatcher<I, O> {
  private pending: { item: I; resolve: (value: O) => void; reject: (error: unknown) => void }[] =
    [];
  private inFlight = false;

  constructor(
    /** One result per item, in their order. */
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
      // Each call again on its own, so a failure is only the failing row's, not its neighbours'.
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

/** A SQLSTATE means PostgreSQL rolled the implicit transaction back; client failures carry none. */
function rolledBack(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

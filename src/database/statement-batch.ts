/**
 * Gathers the calls made during one turn of the event loop and runs them as one statement: under
 * load, many requests reach the same step at once, and one round trip and one commit for all of
 * them costs both Node and PostgreSQL far less than one each. A lone call waits one `setImmediate`.
 *
 * `run` gets the items in the order given and answers one result per item, in that order; when it
 * throws, every call of the batch fails with its error.
 */
export class StatementBatch<Item, Result> {
  private pending: { item: Item; resolve: (r: Result) => void; reject: (e: unknown) => void }[] =
    [];

  constructor(
    private readonly run: (items: Item[]) => Promise<Result[]>,
    private readonly maxItems: number,
  ) {}

  add(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= this.maxItems) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    try {
      const results = await this.run(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(results[i]));
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }
}

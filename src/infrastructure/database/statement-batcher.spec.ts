import { StatementBatcher } from './statement-batcher';

/** A batch function whose runs are recorded and finished by hand. */
function recorder() {
  const runs: { items: number[]; finish: (error?: Error) => void }[] = [];
  const run = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      runs.push({
        items,
        finish: (error) => (error ? reject(error) : resolve(items.map((i) => `done ${i}`))),
      });
    });
  return { runs, run };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('StatementBatcher', () => {
  it('sends a call alone at once when nothing is in flight', async () => {
    const { runs, run } = recorder();
    const batcher = new StatementBatcher(run, { maxBatch: 10, key: (i) => i });
    const answer = batcher.call(1);
    expect(runs.map((r) => r.items)).toEqual([[1]]);
    runs[0].finish();
    await expect(answer).resolves.toBe('done 1');
  });

  it('sends the calls made while a batch is in flight together, each answered its own result', async () => {
    const { runs, run } = recorder();
    const batcher = new StatementBatcher(run, { maxBatch: 10, key: (i) => i });
    const first = batcher.call(1);
    const others = [2, 3, 4].map((i) => batcher.call(i));
    expect(runs).toHaveLength(1);
    runs[0].finish();
    await first;
    await tick();
    expect(runs.map((r) => r.items)).toEqual([[1], [2, 3, 4]]);
    runs[1].finish();
    await expect(Promise.all(others)).resolves.toEqual(['done 2', 'done 3', 'done 4']);
  });

  it('never puts more than maxBatch calls, or two calls of one key, in one batch', async () => {
    const { runs, run } = recorder();
    const batcher = new StatementBatcher(run, { maxBatch: 3, key: (i) => i % 10 });
    const calls = [1, 2, 12, 3, 4, 5].map((i) => batcher.call(i));
    // 1 went alone; then 2, 3, 4 (12 shares 2's key, 5 is past the size); then 12 and 5.
    for (let n = 0; n < 3; n++) {
      runs[n].finish();
      await tick();
    }
    expect(runs.map((r) => r.items)).toEqual([[1], [2, 3, 4], [12, 5]]);
    await expect(Promise.all(calls)).resolves.toHaveLength(6);
  });

  it('runs the calls of a batch PostgreSQL refused again one at a time: only the call that fails alone fails', async () => {
    const { runs, run } = recorder();
    const batcher = new StatementBatcher(run, { maxBatch: 10, key: (i) => i });
    const first = batcher.call(1);
    const [two, three] = [2, 3].map((i) => batcher.call(i));
    runs[0].finish();
    await first;
    await tick();
    runs[1].finish(Object.assign(new Error('deadlock detected'), { code: '40P01' }));
    await tick();
    expect(runs.map((r) => r.items)).toEqual([[1], [2, 3], [2], [3]]);
    runs[2].finish();
    runs[3].finish(new Error('connection lost'));
    await expect(two).resolves.toBe('done 2');
    await expect(three).rejects.toThrow('connection lost');
    // Then the batcher goes on.
    const after = batcher.call(4);
    await tick();
    expect(runs[4].items).toEqual([4]);
    runs[4].finish();
    await expect(after).resolves.toBe('done 4');
  });

  it('fails every call of a batch whose outcome is unknown (the connection dropped), trying none again', async () => {
    const { runs, run } = recorder();
    const batcher = new StatementBatcher(run, { maxBatch: 10, key: (i) => i });
    const first = batcher.call(1);
    const failing = [2, 3].map((i) => batcher.call(i));
    runs[0].finish();
    await first;
    await tick();
    runs[1].finish(new Error('Connection terminated unexpectedly'));
    for (const call of failing) await expect(call).rejects.toThrow('Connection terminated');
    expect(runs).toHaveLength(2);
  });
});

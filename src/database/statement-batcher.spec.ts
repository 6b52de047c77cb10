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

  it('fails every call of a failed batch, and goes on with the next one', async () => {
    const { runs, run } = recorder();
    const batcher = new StatementBatcher(run, { maxBatch: 10, key: (i) => i });
    const first = batcher.call(1);
    const failing = [2, 3].map((i) => batcher.call(i));
    runs[0].finish();
    await first;
    await tick();
    const after = batcher.call(4);
    runs[1].finish(new Error('connection lost'));
    for (const call of failing) await expect(call).rejects.toThrow('connection lost');
    await tick();
    expect(runs.map((r) => r.items)).toEqual([[1], [2, 3], [4]]);
    runs[2].finish();
    await expect(after).resolves.toBe('done 4');
  });
});

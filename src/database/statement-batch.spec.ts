import { StatementBatch } from './statement-batch';

describe('StatementBatch', () => {
  it('runs the calls of one turn of the event loop together and answers each its own result', async () => {
    const runs: number[][] = [];
    const batch = new StatementBatch<number, number>((items) => {
      runs.push(items);
      return Promise.resolve(items.map((n) => n * 10));
    }, 100);
    const results = await Promise.all([1, 2, 3].map((n) => batch.add(n)));
    expect(results).toEqual([10, 20, 30]);
    expect(runs).toEqual([[1, 2, 3]]);
    expect(await batch.add(4)).toBe(40);
    expect(runs).toEqual([[1, 2, 3], [4]]);
  });

  it('runs at most maxItems at once', async () => {
    const runs: number[][] = [];
    const batch = new StatementBatch<number, number>((items) => {
      runs.push(items);
      return Promise.resolve(items);
    }, 2);
    expect(await Promise.all([1, 2, 3, 4, 5].map((n) => batch.add(n)))).toEqual([1, 2, 3, 4, 5]);
    expect(runs).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('fails every call of a batch whose statement fails, and the next batch runs anew', async () => {
    let fail = true;
    const batch = new StatementBatch<number, number>((items) => {
      if (fail) return Promise.reject(new Error('connection lost'));
      return Promise.resolve(items);
    }, 100);
    const failed = await Promise.allSettled([batch.add(1), batch.add(2)]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await batch.add(3)).toBe(3);
  });
});

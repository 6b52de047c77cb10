import { Deadlines } from './deadlines';

/** Settles `work` from outside, as Redis answering (or never answering) would. */
function pending<T>(): { work: Promise<T>; answer: (value: T) => void; fail: (e: Error) => void } {
  let answer!: (value: T) => void;
  let fail!: (e: Error) => void;
  const work = new Promise<T>((resolve, reject) => ((answer = resolve), (fail = reject)));
  return { work, answer, fail };
}

/** What each promise has come to so far: its value, its error's message, or 'waiting'. */
function outcomes(promises: Promise<unknown>[]): () => unknown[] {
  const seen: unknown[] = promises.map(() => 'waiting');
  promises.forEach((promise, i) =>
    promise.then(
      (value) => (seen[i] = value),
      (error: Error) => (seen[i] = error.message),
    ),
  );
  return () => [...seen];
}

describe('Deadlines', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const deadlines = () => new Deadlines(1_000, () => new Error('too late'));

  it('passes on what settles in time, and gives up on each wait exactly when its own time is up', async () => {
    const limits = deadlines();
    const first = pending<number>();
    const second = pending<number>();
    const third = pending<number>();
    const fourth = pending<number>();
    const seen = outcomes([limits.within(first.work), limits.within(second.work)]);
    await jest.advanceTimersByTimeAsync(400);
    const later = outcomes([limits.within(third.work), limits.within(fourth.work)]);
    second.answer(2);
    await jest.advanceTimersByTimeAsync(599);
    expect(seen()).toEqual(['waiting', 2]);
    await jest.advanceTimersByTimeAsync(1);
    expect(seen()).toEqual(['too late', 2]);
    first.answer(1); // an answer after the deadline changes nothing
    fourth.fail(new Error('refused'));
    await jest.advanceTimersByTimeAsync(399);
    expect(later()).toEqual(['waiting', 'refused']);
    await jest.advanceTimersByTimeAsync(1);
    expect(later()).toEqual(['too late', 'refused']);
    expect(seen()).toEqual(['too late', 2]);
  });

  it('keeps working after every wait has gone: a new wait gets a full time of its own', async () => {
    const limits = deadlines();
    const early = pending<string>();
    const seen = outcomes([limits.within(early.work)]);
    early.answer('in time');
    await jest.advanceTimersByTimeAsync(5_000);
    expect(seen()).toEqual(['in time']);
    const late = outcomes([limits.within(pending<string>().work)]);
    await jest.advanceTimersByTimeAsync(999);
    expect(late()).toEqual(['waiting']);
    await jest.advanceTimersByTimeAsync(1);
    expect(late()).toEqual(['too late']);
    expect(jest.getTimerCount()).toBe(0);
  });
});

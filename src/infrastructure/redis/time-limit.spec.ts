import { withinTime } from './time-limit';

const never = new Promise<never>(() => undefined);

describe('withinTime', () => {
  it('settles as the call does when it answers in time', async () => {
    await expect(withinTime(Promise.resolve('PONG'), 1_000)).resolves.toBe('PONG');
    await expect(withinTime(Promise.reject(new Error('refused')), 1_000)).rejects.toThrow(
      'refused',
    );
  });

  it('rejects a call that never answers, with the caller’s error or a default one', async () => {
    class Unavailable extends Error {}
    await expect(withinTime(never, 10, () => new Unavailable('late'))).rejects.toBeInstanceOf(
      Unavailable,
    );
    await expect(withinTime(never, 10)).rejects.toThrow('Redis did not answer in 10 ms');
  });

  // One timer per time limit, not one per call (docs/performance.md#shared-deadlines).
  it('bounds any number of calls with one timer per time limit, each call with its own error', async () => {
    jest.useFakeTimers();
    try {
      class Unavailable extends Error {}
      const answers: Array<(value: string) => void> = [];
      const calls = Array.from({ length: 50 }, (_, i) =>
        withinTime(
          new Promise<string>((resolve) => answers.push(resolve)),
          2_000,
          () => new Unavailable(`call ${i}`),
        ).then(
          (value) => value,
          (error: Error) => `${error.constructor.name}: ${error.message}`,
        ),
      );
      expect(jest.getTimerCount()).toBe(1);
      answers[7]('PONG');
      await jest.advanceTimersByTimeAsync(2_000);
      const settled = await Promise.all(calls);
      expect(settled[7]).toBe('PONG');
      expect(settled[8]).toBe('Unavailable: call 8');
      expect(settled.filter((outcome) => outcome.startsWith('Unavailable'))).toHaveLength(49);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});

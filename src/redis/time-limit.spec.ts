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
});

import { notReadyWaitMs } from './container-flow';

describe('notReadyWaitMs: when a container still processing is read again', () => {
  it('reads a young container every second, so an image ready in seconds waits at most one more', () => {
    expect([0, 400, 3_000, 9_999].map(notReadyWaitMs)).toEqual([1_000, 1_000, 1_000, 1_000]);
  });

  it('then waits as long as it has processed, at most a minute: a long video is not read every second', () => {
    expect([10_000, 25_000, 59_000, 60_000, 20 * 60_000].map(notReadyWaitMs)).toEqual([
      10_000, 25_000, 59_000, 60_000, 60_000,
    ]);
  });
});

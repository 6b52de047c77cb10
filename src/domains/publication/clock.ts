/** The time and the waits of the publication pipeline; tests give it a clock they move. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const CLOCK = Symbol('CLOCK');

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms) =>
    ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve(),
};

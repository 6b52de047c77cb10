interface Wait {
  due: number;
  reject: (error: Error) => void;
  timedOut: () => Error;
  previous: Wait | null;
  next: Wait | null;
}

/** One timer for many equal waits (docs/performance.md#shared-deadlines). */
export class Deadlines {
  private oldest: Wait | null = null;
  private newest: Wait | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly ms: number,
    private readonly timedOut: () => Error,
  ) {}

  /** Rejects with `timedOut()` (this wait's, else the instance's) once `ms` pass. */
  within<T>(work: Promise<T>, timedOut: () => Error = this.timedOut): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const wait: Wait = {
        due: performance.now() + this.ms,
        reject,
        timedOut,
        previous: this.newest,
        next: null,
      };
      if (this.newest) this.newest.next = wait;
      else this.oldest = wait;
      this.newest = wait;
      if (this.timer === null) this.arm(this.ms);
      work.then(
        (value) => {
          this.remove(wait);
          resolve(value);
        },
        (error: unknown) => {
          this.remove(wait);
          reject(error);
        },
      );
    });
  }

  private remove(wait: Wait): void {
    if (wait.previous) wait.previous.next = wait.next;
    else if (this.oldest === wait) this.oldest = wait.next;
    else return; // already removed: it timed out
    if (wait.next) wait.next.previous = wait.previous;
    else this.newest = wait.previous;
    wait.previous = wait.next = null;
  }

  /** Unreferenced: the work itself (a socket) keeps the process up, not its deadline. */
  private arm(delay: number): void {
    this.timer = setTimeout(() => this.expire(), delay).unref();
  }

  private expire(): void {
    this.timer = null;
    const now = performance.now();
    for (let wait = this.oldest; wait !== null && wait.due <= now; wait = this.oldest) {
      this.remove(wait);
      wait.reject(wait.timedOut());
    }
    if (this.oldest) this.arm(Math.max(1, Math.ceil(this.oldest.due - now)));
  }
}

/** How long a stand-in waits before it answers a call it has served: `ms` ± `jitterMs`. */
export class AnswerDelay {
  private ms = 0;
  private jitterMs = 0;

  set(ms: number, jitterMs = 0): void {
    this.ms = ms;
    this.jitterMs = jitterMs;
  }

  async wait(): Promise<void> {
    const wait = this.ms + (Math.random() * 2 - 1) * this.jitterMs;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

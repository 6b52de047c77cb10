import type { EndpointAnswer, EndpointSlots } from './endpoint-slots';
import type { SendJob } from './webhook.queue';

/**
 * Sends due now, delivered without a queue job in a lane per endpoint, on the endpoint's slots
 * shared with the queue's jobs (docs/performance.md); after `waitMs` unstarted, to the queue.
 */
export class EndpointLanes {
  private readonly lanes = new Map<number, { running: number; waiting: Waiting[] }>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly held = new Set<number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly slots: EndpointSlots,
    private readonly waitMs: number,
    /** Null when nothing was sent (another holds the send, or it was cancelled). */
    private readonly deliver: (send: SendJob) => Promise<EndpointAnswer | null>,
    private readonly overflow: (sends: SendJob[]) => void,
    private readonly now: () => number = Date.now,
  ) {
    slots.onFree = (webhookId) => this.startNext(webhookId);
  }

  offer(sends: SendJob[]): void {
    const at = this.now();
    for (const send of sends) {
      if (this.held.has(send.id)) continue;
      this.held.add(send.id);
      const lane = this.laneOf(send.webhookId);
      lane.waiting.push({ send, at });
      this.pump(send.webhookId);
    }
    this.expireLater();
  }

  /** Whether this send waits or runs here (the sweep leaves it alone). */
  holds(sendId: number): boolean {
    return this.held.has(sendId);
  }

  /** Until every delivery started has ended. */
  async drained(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.overflowExpired(-Infinity);
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private laneOf(webhookId: number) {
    let lane = this.lanes.get(webhookId);
    if (!lane) {
      lane = { running: 0, waiting: [] };
      this.lanes.set(webhookId, lane);
    }
    return lane;
  }

  private pump(webhookId: number): void {
    while (this.startNext(webhookId));
  }

  /** Starts the lane's next send if the endpoint has a slot free; true when it did. */
  private startNext(webhookId: number): boolean {
    const lane = this.lanes.get(webhookId);
    const limit = this.slots.limitOf(webhookId);
    if (!lane || lane.waiting.length === 0 || !this.slots.take(webhookId, limit)) {
      if (lane && lane.running === 0 && lane.waiting.length === 0) this.lanes.delete(webhookId);
      return false;
    }
    const { send } = lane.waiting.shift()!;
    lane.running++;
    const done: Promise<void> = this.deliver(send)
      .then((answer) => {
        if (answer) this.slots.answered(webhookId, answer);
      })
      .catch(() => undefined)
      .finally(() => {
        this.inFlight.delete(done);
        this.held.delete(send.id);
        lane.running--;
        this.slots.release(webhookId);
        this.pump(webhookId);
        if (lane.running === 0 && lane.waiting.length === 0) this.lanes.delete(webhookId);
      });
    this.inFlight.add(done);
    return true;
  }

  private expireLater(): void {
    if (this.timer) return;
    const waiting = [...this.lanes.values()].some((lane) => lane.waiting.length > 0);
    if (!waiting) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.overflowExpired(this.waitMs);
      this.expireLater();
    }, this.waitMs / 4);
    this.timer.unref();
  }

  /** Hands the sends that waited `longerThanMs` to the queue. */
  private overflowExpired(longerThanMs: number): void {
    const cutoff = this.now() - longerThanMs;
    const expired: SendJob[] = [];
    for (const [webhookId, lane] of this.lanes) {
      const stay = lane.waiting.filter((entry) => entry.at > cutoff);
      for (const entry of lane.waiting)
        if (entry.at <= cutoff) {
          expired.push(entry.send);
          this.held.delete(entry.send.id);
        }
      lane.waiting = stay;
      if (lane.running === 0 && lane.waiting.length === 0) this.lanes.delete(webhookId);
    }
    if (expired.length > 0) this.overflow(expired);
  }
}

interface Waiting {
  send: SendJob;
  at: number;
}

/** Its job goes back to the queue, delayed, and gives its slot to another endpoint's delivery. */
export class EndpointBusy extends Error {
  constructor(
    readonly webhookId: number,
    readonly delayMs: number,
  ) {
    super(`Endpoint ${webhookId} has its share of deliveries in flight`);
  }
}

export interface EndpointAnswer {
  ok: boolean;
  durationMs: number;
}

export interface LaneGrowth {
  maxLimit: number;
  fastMs: number;
}

/**
 * At most `cap` deliveries per endpoint in this worker: a hanging endpoint never takes all. Up to
 * `lineLimit` jobs in all (and `cap` per endpoint) may wait in the worker for a slot of their
 * endpoint, handed over as a delivery ends, rather than go back to the queue. A lane may grow past
 * `cap` while its endpoint answers fast (`answered`; docs/performance.md).
 */
export class EndpointSlots {
  private readonly inFlight = new Map<number, number>();
  /** Endpoints allowed more than `cap`, and how many. */
  private readonly limits = new Map<number, number>();
  /** Oldest first, by endpoint. */
  private readonly waiting = new Map<number, string[]>();
  private readonly lines = new Map<number, (() => void)[]>();
  private lined = 0;
  /** Offered a slot as it frees, before parked jobs are woken; true when it took the slot. */
  onFree?: (webhookId: number) => boolean;

  constructor(
    private readonly cap: number,
    private readonly wake: (jobId: string) => void,
    private readonly lineLimit = 0,
    private readonly growth: LaneGrowth = { maxLimit: cap, fastMs: 0 },
  ) {}

  /** What the endpoint's lane may have in flight now. */
  limitOf(webhookId: number): number {
    return this.limits.get(webhookId) ?? this.cap;
  }

  /** Before the delivery's slot is released. */
  answered(webhookId: number, answer: EndpointAnswer): void {
    const limit = this.limitOf(webhookId);
    if (answer.ok && answer.durationMs <= this.growth.fastMs) {
      const full = (this.inFlight.get(webhookId) ?? 0) >= limit;
      if (full && limit < this.growth.maxLimit) this.limits.set(webhookId, limit + 1);
      return;
    }
    const lower = Math.max(this.cap, Math.floor(limit / 2));
    if (lower > this.cap) this.limits.set(webhookId, lower);
    else this.limits.delete(webhookId);
  }

  /** True once it holds a slot; false when the endpoint holds its share and its line is full. */
  async acquire(webhookId: number): Promise<boolean> {
    if (this.take(webhookId)) return true;
    const line = this.lines.get(webhookId) ?? [];
    if (line.length >= this.cap || this.lined >= this.lineLimit) return false;
    this.lined++;
    this.lines.set(webhookId, line);
    await new Promise<void>((resolve) => line.push(resolve));
    return true;
  }

  /** False when the endpoint holds its share (`limit`: a lane's, else `cap`). */
  take(webhookId: number, limit = this.cap): boolean {
    const held = this.inFlight.get(webhookId) ?? 0;
    if (held >= limit) return false;
    this.inFlight.set(webhookId, held + 1);
    return true;
  }

  release(webhookId: number): void {
    const line = this.lines.get(webhookId);
    const next = line?.shift();
    if (next) {
      if (line!.length === 0) this.lines.delete(webhookId);
      this.lined--;
      next();
      return this.wakeOne(webhookId);
    }
    const held = (this.inFlight.get(webhookId) ?? 1) - 1;
    if (held > 0) this.inFlight.set(webhookId, held);
    else this.inFlight.delete(webhookId);
    if (this.onFree?.(webhookId)) return;
    this.wakeOne(webhookId);
  }

  /** Woken when a slot frees up. */
  park(webhookId: number, jobId: string): void {
    const queue = this.waiting.get(webhookId) ?? [];
    if (!queue.includes(jobId)) queue.push(jobId);
    this.waiting.set(webhookId, queue);
    if ((this.inFlight.get(webhookId) ?? 0) < this.cap) this.wakeOne(webhookId);
  }

  private wakeOne(webhookId: number): void {
    const queue = this.waiting.get(webhookId);
    const jobId = queue?.shift();
    if (queue?.length === 0) this.waiting.delete(webhookId);
    if (jobId !== undefined) this.wake(jobId);
  }
}

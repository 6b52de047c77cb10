/** Its job goes back to the queue, delayed, and gives its slot to another endpoint's delivery. */
export class EndpointBusy extends Error {
  constructor(
    readonly webhookId: number,
    readonly delayMs: number,
  ) {
    super(`Endpoint ${webhookId} has its share of deliveries in flight`);
  }
}

/** At most `cap` deliveries per endpoint in this worker: a hanging endpoint never takes all. */
export class EndpointSlots {
  private readonly inFlight = new Map<number, number>();
  /** Oldest first, by endpoint. */
  private readonly waiting = new Map<number, string[]>();

  constructor(
    private readonly cap: number,
    private readonly wake: (jobId: string) => void,
  ) {}

  /** False when the endpoint holds its share. */
  take(webhookId: number): boolean {
    const held = this.inFlight.get(webhookId) ?? 0;
    if (held >= this.cap) return false;
    this.inFlight.set(webhookId, held + 1);
    return true;
  }

  release(webhookId: number): void {
    const held = (this.inFlight.get(webhookId) ?? 1) - 1;
    if (held > 0) this.inFlight.set(webhookId, held);
    else this.inFlight.delete(webhookId);
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

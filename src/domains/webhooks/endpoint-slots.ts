/**
 * Thrown by a delivery whose endpoint already holds its share of the worker's slots: its job goes
 * back to the queue, delayed, and gives its slot to another endpoint's delivery.
 */
export class EndpointBusy extends Error {
  constructor(
    readonly webhookId: number,
    readonly delayMs: number,
  ) {
    super(`Endpoint ${webhookId} has its share of deliveries in flight`);
  }
}

/**
 * How many deliveries each endpoint has in flight in this worker, at most `cap` each, so that an
 * endpoint that hangs (each attempt waiting out WEBHOOK_TIMEOUT_MS) never takes every slot and
 * the other endpoints' deliveries go on unaffected. A job turned away waits delayed in the queue
 * and is woken (`wake`: promoted) as soon as one of its endpoint's deliveries ends here; its delay
 * only matters when no delivery of that endpoint ends in this worker first.
 */
export class EndpointSlots {
  private readonly inFlight = new Map<number, number>();
  /** Jobs turned away, oldest first, by endpoint. */
  private readonly waiting = new Map<number, string[]>();

  constructor(
    private readonly cap: number,
    private readonly wake: (jobId: string) => void,
  ) {}

  /** Takes one of the endpoint's slots; false when it holds its share. */
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

  /** A job turned away is now delayed in the queue: it is woken when a slot frees up. */
  park(webhookId: number, jobId: string): void {
    const queue = this.waiting.get(webhookId) ?? [];
    if (!queue.includes(jobId)) queue.push(jobId);
    this.waiting.set(webhookId, queue);
    // A delivery may have ended while the job was being put back.
    if ((this.inFlight.get(webhookId) ?? 0) < this.cap) this.wakeOne(webhookId);
  }

  private wakeOne(webhookId: number): void {
    const queue = this.waiting.get(webhookId);
    const jobId = queue?.shift();
    if (queue?.length === 0) this.waiting.delete(webhookId);
    if (jobId !== undefined) this.wake(jobId);
  }
}

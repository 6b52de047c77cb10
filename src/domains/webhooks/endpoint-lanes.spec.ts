import { EndpointLanes } from './endpoint-lanes';
import { EndpointSlots, type EndpointAnswer } from './endpoint-slots';
import type { SendJob } from './webhook.queue';

const LANE_WAIT_MS = 1_000;

const send = (id: number, webhookId: number): SendJob => ({ id, attempt: 0, webhookId, dueMs: 0 });

const FAST_MS = 100;

/** Deliveries that end only when the test says so, answered fast unless it says otherwise. */
function world(cap: number, maxLimit = cap) {
  const started: SendJob[] = [];
  const finish = new Map<number, (answer: EndpointAnswer | null) => void>();
  const overflowed: SendJob[] = [];
  const woken: string[] = [];
  const slots = new EndpointSlots(cap, (jobId) => woken.push(jobId), 0, {
    maxLimit,
    fastMs: FAST_MS,
  });
  const lanes = new EndpointLanes(
    slots,
    LANE_WAIT_MS,
    (job) => {
      started.push(job);
      return new Promise<EndpointAnswer | null>((done) => finish.set(job.id, done));
    },
    (jobs) => overflowed.push(...jobs),
  );
  const end = async (id: number, answer: EndpointAnswer = { ok: true, durationMs: 5 }) => {
    finish.get(id)!(answer);
    await Promise.resolve();
    await Promise.resolve();
    await Promise.resolve();
  };
  return { lanes, slots, started, overflowed, woken, end };
}

describe('EndpointLanes', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("runs at most `cap` deliveries of an endpoint at once; another endpoint's start at once", async () => {
    const { lanes, started, end } = world(2);
    lanes.offer([send(1, 7), send(2, 7), send(3, 7), send(4, 8)]);
    expect(started.map((s) => s.id)).toEqual([1, 2, 4]);
    await end(2);
    expect(started.map((s) => s.id)).toEqual([1, 2, 4, 3]);
  });

  it('hands a send that could not start within its wait to the queue, and only that one', async () => {
    const { lanes, started, overflowed, end } = world(1);
    lanes.offer([send(1, 7), send(2, 7)]);
    jest.advanceTimersByTime(LANE_WAIT_MS / 2);
    lanes.offer([send(3, 7)]);
    jest.advanceTimersByTime(LANE_WAIT_MS / 2 + LANE_WAIT_MS / 4);
    expect(overflowed.map((s) => s.id)).toEqual([2]);
    await end(1);
    expect(started.map((s) => s.id)).toEqual([1, 3]);
  });

  it('on shutdown hands every waiting send to the queue and waits for those running', async () => {
    const { lanes, overflowed, end } = world(1);
    lanes.offer([send(1, 7), send(2, 7)]);
    let drained = false;
    const draining = lanes.drained().then(() => (drained = true));
    expect(overflowed.map((s) => s.id)).toEqual([2]);
    await Promise.resolve();
    expect(drained).toBe(false);
    await end(1);
    await draining;
    expect(drained).toBe(true);
  });

  it("shares the endpoint's slots with the queue's jobs: a freed slot goes to the lane first", async () => {
    const { lanes, slots, started, woken, end } = world(2);
    // Both slots held by the queue's jobs, and a third job parked for one.
    expect(slots.take(7)).toBe(true);
    expect(slots.take(7)).toBe(true);
    slots.park(7, 'job-parked');
    lanes.offer([send(1, 7), send(2, 7)]);
    expect(started).toEqual([]);
    slots.release(7);
    expect(started.map((s) => s.id)).toEqual([1]);
    await end(1);
    expect(started.map((s) => s.id)).toEqual([1, 2]);
    expect(woken).toEqual([]);
    // Nothing left in the lane: the next slot to free wakes the parked job.
    slots.release(7);
    expect(woken).toEqual(['job-parked']);
  });

  it('holds a send while it waits or runs, so the sweep leaves it alone; offered twice, it runs once', async () => {
    const { lanes, started, overflowed, end } = world(1);
    lanes.offer([send(1, 7), send(2, 7)]);
    lanes.offer([send(1, 7)]);
    expect(started.map((s) => s.id)).toEqual([1]);
    expect([lanes.holds(1), lanes.holds(2), lanes.holds(3)]).toEqual([true, true, false]);
    jest.advanceTimersByTime(LANE_WAIT_MS + LANE_WAIT_MS / 4);
    expect(overflowed.map((s) => s.id)).toEqual([2]);
    expect(lanes.holds(2)).toBe(false);
    await end(1);
    expect(lanes.holds(1)).toBe(false);
    expect(started.map((s) => s.id)).toEqual([1]);
  });

  it('lets an endpoint that answers fast have more in flight, one more per fast answer while full, up to the most', async () => {
    const { lanes, slots, started, end } = world(2, 4);
    lanes.offer([1, 2, 3, 4, 5, 6, 7, 8].map((id) => send(id, 7)));
    expect(started.map((s) => s.id)).toEqual([1, 2]);
    // A fast answer while the lane held all it may: one more may go, so two start in its place.
    await end(1);
    expect(started.map((s) => s.id)).toEqual([1, 2, 3, 4]);
    expect(slots.limitOf(7)).toBe(3);
    await end(2);
    expect(slots.limitOf(7)).toBe(4);
    expect(started.map((s) => s.id)).toEqual([1, 2, 3, 4, 5, 6]);
    // At the most, a fast answer frees its own slot only.
    await end(3);
    expect(slots.limitOf(7)).toBe(4);
    expect(started).toHaveLength(7);
    // Another endpoint starts at the base share.
    expect(slots.limitOf(8)).toBe(2);
  });

  it('halves what a slow or failing endpoint may have beyond its share, never below it', async () => {
    const { lanes, slots, started, end } = world(2, 16);
    lanes.offer(Array.from({ length: 40 }, (_, i) => send(i + 1, 7)));
    let next = 1;
    while (slots.limitOf(7) < 16) await end(next++);
    expect(started.length - (next - 1)).toBe(16);
    await end(next++, { ok: true, durationMs: FAST_MS + 1 });
    expect(slots.limitOf(7)).toBe(8);
    await end(next++, { ok: false, durationMs: 5 });
    expect(slots.limitOf(7)).toBe(4);
    await end(next++, { ok: false, durationMs: 5 });
    await end(next++, { ok: false, durationMs: 5 });
    expect(slots.limitOf(7)).toBe(2);
  });

  it("gives the queue's jobs the base share only, whatever the lane may have", async () => {
    const { lanes, slots, end } = world(1, 4);
    lanes.offer([1, 2, 3].map((id) => send(id, 7)));
    await end(1);
    expect(slots.limitOf(7)).toBe(2);
    // Two of the lane's in flight: a queue job finds the endpoint's share taken.
    expect(slots.take(7)).toBe(false);
  });
});

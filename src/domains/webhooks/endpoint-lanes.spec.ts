import { EndpointLanes } from './endpoint-lanes';
import { EndpointSlots } from './endpoint-slots';
import type { SendJob } from './webhook.queue';

const LANE_WAIT_MS = 1_000;

const send = (id: number, webhookId: number): SendJob => ({ id, attempt: 0, webhookId, dueMs: 0 });

/** Deliveries that end only when the test says so. */
function world(cap: number) {
  const started: SendJob[] = [];
  const finish = new Map<number, () => void>();
  const overflowed: SendJob[] = [];
  const woken: string[] = [];
  const slots = new EndpointSlots(cap, (jobId) => woken.push(jobId));
  const lanes = new EndpointLanes(
    slots,
    LANE_WAIT_MS,
    (job) => {
      started.push(job);
      return new Promise<void>((done) => finish.set(job.id, done));
    },
    (jobs) => overflowed.push(...jobs),
  );
  const end = async (id: number) => {
    finish.get(id)!();
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
});

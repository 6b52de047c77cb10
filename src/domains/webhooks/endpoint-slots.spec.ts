import { EndpointSlots } from './endpoint-slots';

describe('EndpointSlots', () => {
  it('lets each endpoint hold its share, whatever the others hold', () => {
    const slots = new EndpointSlots(2, () => undefined);
    expect([slots.take(1), slots.take(1), slots.take(1)]).toEqual([true, true, false]);
    expect([slots.take(2), slots.take(2), slots.take(2)]).toEqual([true, true, false]);
    slots.release(1);
    expect([slots.take(1), slots.take(2)]).toEqual([true, false]);
  });

  it('wakes the oldest job turned away when one of its endpoint’s deliveries ends', () => {
    const woken: string[] = [];
    const slots = new EndpointSlots(1, (jobId) => woken.push(jobId));
    slots.take(1);
    slots.park(1, 'a');
    slots.park(1, 'b');
    slots.park(1, 'a');
    slots.park(2, 'other');
    expect(woken).toEqual(['other']); // endpoint 2 had room all along
    slots.release(1);
    expect(woken).toEqual(['other', 'a']);
    slots.take(1);
    slots.release(1);
    expect(woken).toEqual(['other', 'a', 'b']);
    slots.release(1);
    expect(woken).toEqual(['other', 'a', 'b']);
  });

  it('lines up to its cap of jobs in the worker, each handed a slot as a delivery ends', async () => {
    const woken: string[] = [];
    const slots = new EndpointSlots(1, (jobId) => woken.push(jobId), 2);
    expect(await slots.acquire(1)).toBe(true);
    const lined = slots.acquire(1);
    expect(await slots.acquire(1)).toBe(false); // its line holds its cap
    const other = slots.acquire(2);
    expect(await other).toBe(true);
    const second = slots.acquire(2);
    expect(await slots.acquire(3)).toBe(true);
    expect(await slots.acquire(3)).toBe(false); // the lines hold all they may in the worker
    slots.park(1, 'a');
    slots.release(1);
    expect(await lined).toBe(true);
    expect(woken).toEqual(['a']);
    expect(slots.take(1)).toBe(false); // the slot was handed over, not freed
    slots.release(2);
    expect(await second).toBe(true);
  });
});

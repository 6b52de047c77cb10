import { initialStatus, PUBLISHABLE_FROM, scheduleHorizon } from './post-state';

describe('post states (D7)', () => {
  it.each([
    [{}, 'draft'],
    [{ publishNow: false }, 'draft'],
    [{ scheduledAt: null }, 'draft'],
    [{ scheduledAt: '2030-01-01T00:00:00Z' }, 'scheduled'],
    [{ publishNow: true }, 'queued'],
  ])('a new post created with %j is %s', (input, status) => {
    expect(initialStatus(input)).toBe(status);
  });

  it('POST publish is allowed from draft, scheduled and failed only', () => {
    expect([...PUBLISHABLE_FROM].sort()).toEqual(['draft', 'failed', 'scheduled']);
  });

  it('the schedule horizon is one calendar year (D8), leap days included', () => {
    expect(new Date(scheduleHorizon(Date.parse('2027-03-01T10:00:00Z'))).toISOString()).toBe(
      '2028-03-01T10:00:00.000Z',
    );
  });
});

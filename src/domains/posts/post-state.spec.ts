import {
  DELETABLE_FROM,
  EDITABLE_FROM,
  initialStatus,
  POST_STATUSES,
  PostStatus,
  PROCESSABLE_FROM,
  PUBLISHABLE_FROM,
  scheduleHorizon,
  TARGET_STATUSES,
} from './post-state';

describe('post states', () => {
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

  it('the schedule horizon is one calendar year, leap days included', () => {
    expect(new Date(scheduleHorizon(Date.parse('2027-03-01T10:00:00Z'))).toISOString()).toBe(
      '2028-03-01T10:00:00.000Z',
    );
  });

  it('names the six post states and the three target states', () => {
    expect(POST_STATUSES).toEqual([
      'draft',
      'scheduled',
      'queued',
      'publishing',
      'published',
      'failed',
    ]);
    expect(TARGET_STATUSES).toEqual(['pending', 'published', 'failed']);
  });

  // Every state against every action: publish, process (the job's guard), edit and delete.
  const transitions: [PostStatus, boolean, boolean, boolean, boolean][] = [
    // status        publish processable edit  delete
    ['draft', true, false, true, true],
    ['scheduled', true, true, true, true],
    ['queued', false, true, false, false],
    ['publishing', false, true, false, false],
    ['published', false, false, false, false],
    ['failed', true, false, false, true],
  ];
  it.each(transitions)(
    'from %s: publish %p, process %p, edit %p, delete %p',
    (status, publish, process, edit, remove) => {
      expect(PUBLISHABLE_FROM.includes(status)).toBe(publish);
      expect(PROCESSABLE_FROM.includes(status)).toBe(process);
      expect(EDITABLE_FROM.includes(status)).toBe(edit);
      expect(DELETABLE_FROM.includes(status)).toBe(remove);
    },
  );

  it('covers every state in the transition table', () => {
    expect(transitions.map(([status]) => status)).toEqual([...POST_STATUSES]);
    for (const list of [PUBLISHABLE_FROM, PROCESSABLE_FROM, EDITABLE_FROM, DELETABLE_FROM]) {
      expect(list.every((status) => POST_STATUSES.includes(status))).toBe(true);
    }
  });

  it.each([
    [{ scheduledAt: '2030-01-01T00:00:00Z', publishNow: false }, 'scheduled'],
    [{ scheduledAt: '2030-01-01T00:00:00Z', publishNow: true }, 'scheduled'],
    [{ scheduledAt: '', publishNow: true }, 'scheduled'],
    [{ scheduledAt: null, publishNow: true }, 'queued'],
    [{ scheduledAt: undefined, publishNow: true }, 'queued'],
    [{ scheduledAt: undefined, publishNow: false }, 'draft'],
  ])('a new post created with %j is %s', (input, status) => {
    expect(initialStatus(input)).toBe(status);
  });

  it.each([
    ['2028-02-29T12:00:00.000Z', '2029-03-01T12:00:00.000Z'],
    ['2026-11-23T04:00:00.000Z', '2027-11-23T04:00:00.000Z'],
    ['2026-12-31T23:59:59.999Z', '2027-12-31T23:59:59.999Z'],
  ])('the schedule horizon from %s is %s', (now, horizon) => {
    expect(new Date(scheduleHorizon(Date.parse(now))).toISOString()).toBe(horizon);
  });
});

import { msUntilReset, rateLimitReport } from './rate-limit-report';

describe('rateLimitReport', () => {
  it.each([
    ['12', 5_000, { window: 'account', remaining: 12, resetAfterMs: 5_000 }],
    ['12.0', 4_999.2, { window: 'account', remaining: 12, resetAfterMs: 5_000 }],
    ['0', 0, { window: 'account', remaining: 0, resetAfterMs: 0 }],
    [null, 5_000, null],
    ['', 5_000, null],
    ['many', 5_000, null],
    ['-1', 5_000, null],
    ['3', null, null],
    ['3', Number.NaN, null],
  ])('remaining %p, reset in %p ms → %p', (remaining, resetAfterMs, expected) => {
    expect(rateLimitReport('account', remaining, resetAfterMs)).toEqual(expected);
  });
});

describe('msUntilReset', () => {
  const now = Date.parse('2026-01-01T00:00:00.000Z');

  it('reads epoch seconds and dates, from the answer’s own Date when it has one', () => {
    expect(msUntilReset(String(now / 1000 + 90), null, now)).toBe(90_000);
    expect(msUntilReset('2026-01-01T00:05:00.000Z', null, now)).toBe(300_000);
    // The platform's clock is 10 s behind ours: the wait is counted on its clock, not shortened.
    const answered = new Date(now - 10_000).toUTCString();
    expect(msUntilReset(String(now / 1000 + 90), answered, now)).toBe(100_000);
  });

  it('is null for what it cannot read, and never negative', () => {
    expect(msUntilReset(null, null, now)).toBeNull();
    expect(msUntilReset('soon', null, now)).toBeNull();
    expect(msUntilReset(String(now / 1000 - 5), null, now)).toBe(0);
  });
});

import { formatTimestamp, parseInputTimestamp } from './timestamps';

describe('formatTimestamp (D1)', () => {
  it.each([
    ['2026-11-22 07:47:01.123456+00', '2026-11-22T07:47:01.123456'],
    ['2026-11-22 07:47:01.1+00', '2026-11-22T07:47:01.100000'],
    ['2026-11-22 07:47:01+00', '2026-11-22T07:47:01.000000'],
    ['2026-11-22 07:47:01.000001+00:00', '2026-11-22T07:47:01.000001'],
  ])('%s → %s', (raw, expected) => expect(formatTimestamp(raw)).toBe(expected));

  it('keeps null', () => expect(formatTimestamp(null)).toBeNull());

  it('refuses a value in another time zone rather than shift it silently', () => {
    expect(() => formatTimestamp('2026-11-22 07:47:01+03')).toThrow();
  });
});

describe('parseInputTimestamp (D1)', () => {
  it.each([
    ['2026-11-22T10:00:00Z', '2026-11-22T10:00:00.000000Z'],
    ['2026-11-22T10:00:00.5Z', '2026-11-22T10:00:00.500000Z'],
    ['2026-11-22T13:00:00+03:00', '2026-11-22T10:00:00.000000Z'],
    ['2026-11-22T05:30:00-0430', '2026-11-22T10:00:00.000000Z'],
    ['2026-11-22T10:00:00', '2026-11-22T10:00:00.000000Z'],
    ['2026-11-22T10:00', '2026-11-22T10:00:00.000000Z'],
    ['2026-11-22T10:00:00.123456Z', '2026-11-22T10:00:00.123456Z'],
    ['2026-11-23T01:00:00+03:00', '2026-11-22T22:00:00.000000Z'],
  ])('%s is the instant %s', (input, iso) => {
    const parsed = parseInputTimestamp(input);
    expect(parsed?.iso).toBe(iso);
    expect(parsed?.epochMs).toBe(Date.parse(iso));
  });

  it.each([
    '',
    'tomorrow',
    '2026-13-01T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '2026-11-22',
    '2026-11-22T24:00:00Z',
    '2026-11-22T10:00:00+25:00',
    '1700000000',
    '2026-11-22 10:00:00Z',
  ])('refuses %p', (input) => expect(parseInputTimestamp(input)).toBeNull());
});

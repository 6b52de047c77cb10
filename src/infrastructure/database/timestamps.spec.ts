import { formatTimestamp, parseInputTimestamp } from './timestamps';

describe('formatTimestamp: UTC with six fractional digits, no offset', () => {
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

describe('parseInputTimestamp: Z, an offset, or none taken as UTC', () => {
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

describe('formatTimestamp boundaries', () => {
  it.each([
    ['2026-11-22T07:47:01.5+00', '2026-11-22T07:47:01.500000'],
    ['2026-11-22 07:47:01.5Z', '2026-11-22T07:47:01.500000'],
    ['2026-11-22 07:47:01-00', '2026-11-22T07:47:01.000000'],
    ['2026-11-22 07:47:01+0000', '2026-11-22T07:47:01.000000'],
    ['2026-11-22 07:47:01', '2026-11-22T07:47:01.000000'],
  ])('%s → %s', (raw, expected) => expect(formatTimestamp(raw)).toBe(expected));

  it.each([
    '2026-11-22 07:47:01.1234567+00',
    '2026-11-22 07:47:01.+00',
    '2026-11-22_07:47:01+00',
    '2026-11-22 07:47+00',
    '26-11-22 07:47:01+00',
    'x2026-11-22 07:47:01+00',
    '2026-11-22 07:47:01+00x',
    '2026-11-22 07:47:01+05:30',
    '2026-11-22 07:47:01+00:30',
  ])('throws on %p, naming the value', (raw) => {
    expect(() => formatTimestamp(raw)).toThrow(`Unexpected timestamp from the database: ${raw}`);
  });
});

describe('parseInputTimestamp boundaries', () => {
  // Every field at its last valid value and its first invalid one, so that a check that lets
  // hour 24, minute or second 60, or an impossible date through fails here.
  it.each([
    ['2026-11-22T23:59:59Z', '2026-11-22T23:59:59.000000Z'],
    ['2026-11-22T00:00:00Z', '2026-11-22T00:00:00.000000Z'],
    ['2026-12-31T23:59:59.999999Z', '2026-12-31T23:59:59.999999Z'],
    ['2026-01-01T00:00Z', '2026-01-01T00:00:00.000000Z'],
    ['2026-01-31T12:00:00Z', '2026-01-31T12:00:00.000000Z'],
    ['2026-02-28T12:00:00Z', '2026-02-28T12:00:00.000000Z'],
    ['2028-02-29T12:00:00Z', '2028-02-29T12:00:00.000000Z'],
    ['2000-02-29T12:00:00Z', '2000-02-29T12:00:00.000000Z'],
    ['2026-04-30T12:00:00Z', '2026-04-30T12:00:00.000000Z'],
    ['2026-11-22T10:00:00.000001Z', '2026-11-22T10:00:00.000001Z'],
    ['2026-11-22T10:00:00.9Z', '2026-11-22T10:00:00.900000Z'],
    ['2026-11-22T10:00:00.12Z', '2026-11-22T10:00:00.120000Z'],
  ])('accepts %s', (input, iso) => {
    const parsed = parseInputTimestamp(input);
    expect(parsed?.iso).toBe(iso);
    expect(parsed?.epochMs).toBe(Date.parse(iso));
  });

  it('keeps the milliseconds of the fraction in epochMs and the microseconds in iso', () => {
    expect(parseInputTimestamp('2026-11-22T10:00:00.123456Z')).toEqual({
      iso: '2026-11-22T10:00:00.123456Z',
      epochMs: Date.parse('2026-11-22T10:00:00Z') + 123,
    });
    expect(parseInputTimestamp('2026-11-22T13:00:00.999+03:00')).toEqual({
      iso: '2026-11-22T10:00:00.999000Z',
      epochMs: Date.parse('2026-11-22T10:00:00Z') + 999,
    });
  });

  it.each([
    ['2026-11-22T10:00:00+00:00', '2026-11-22T10:00:00.000000Z'],
    ['2026-11-22T10:00:00-00:00', '2026-11-22T10:00:00.000000Z'],
    ['2026-11-22T10:00:00+0000', '2026-11-22T10:00:00.000000Z'],
    ['2026-11-22T15:30:00+05:30', '2026-11-22T10:00:00.000000Z'],
    ['2026-11-22T15:30:00+0530', '2026-11-22T10:00:00.000000Z'],
    ['2026-11-22T04:30:00-05:30', '2026-11-22T10:00:00.000000Z'],
    ['2026-11-22T10:59:00+00:59', '2026-11-22T10:00:00.000000Z'],
    ['2026-11-22T23:00:00+23:00', '2026-11-22T00:00:00.000000Z'],
    ['2026-11-22T00:00:00-23:59', '2026-11-22T23:59:00.000000Z'],
    ['2026-11-22T10:00:00-01:00', '2026-11-22T11:00:00.000000Z'],
    ['2026-01-01T01:00:00+02:00', '2025-12-31T23:00:00.000000Z'],
  ])('reads the offset of %s as the instant %s', (input, iso) => {
    const parsed = parseInputTimestamp(input);
    expect(parsed?.iso).toBe(iso);
    expect(parsed?.epochMs).toBe(Date.parse(iso));
  });

  const hours = Array.from({ length: 76 }, (_, i) => `2026-11-22T${24 + i}:00:00Z`);
  const minutes = Array.from({ length: 40 }, (_, i) => `2026-11-22T10:${60 + i}:00Z`);
  const seconds = Array.from({ length: 40 }, (_, i) => `2026-11-22T10:00:${60 + i}Z`);
  it.each([...hours, ...minutes, ...seconds, '2026-11-22T23:60Z', '2026-11-22T23:59:60Z'])(
    'refuses the out-of-range time %s',
    (input) => expect(parseInputTimestamp(input)).toBeNull(),
  );

  it.each([
    '2026-02-29T12:00:00Z',
    '2027-02-29T12:00:00Z',
    '2100-02-29T12:00:00Z',
    '2026-02-30T12:00:00Z',
    '2026-02-31T12:00:00Z',
    '2026-04-31T12:00:00Z',
    '2026-06-31T12:00:00Z',
    '2026-09-31T12:00:00Z',
    '2026-11-31T12:00:00Z',
    '2026-01-32T12:00:00Z',
    '2026-12-32T12:00:00Z',
    '2026-01-00T12:00:00Z',
    '2026-00-10T12:00:00Z',
    '2026-13-10T12:00:00Z',
    '2026-99-99T12:00:00Z',
    // Date.UTC reads the years 0–99 as 1900–1999; no post is scheduled in the first century.
    '0050-01-01T12:00:00Z',
  ])('refuses the impossible date %s', (input) => expect(parseInputTimestamp(input)).toBeNull());

  it.each([
    '2026-11-22T10:00:00+24:00',
    '2026-11-22T10:00:00+99:00',
    '2026-11-22T10:00:00+05:60',
    '2026-11-22T10:00:00-05:99',
    '2026-11-22T10:00:00+5:30',
    '2026-11-22T10:00:00+05',
    '2026-11-22T10:00:00+05:3',
    '2026-11-22T10:00:00 +05:30',
    '2026-11-22T10:00:00z',
    '2026-11-22T10:00:00UTC',
  ])('refuses the offset of %p', (input) => expect(parseInputTimestamp(input)).toBeNull());

  it.each([
    '2026-11-22T10:00:00.1234567Z',
    '2026-11-22T10:00:00.Z',
    '2026-11-22T10:00.5Z',
    '2026-11-22T10:0:00Z',
    '2026-11-22T1:00:00Z',
    '2026-11-2T10:00:00Z',
    '2026-1-22T10:00:00Z',
    '226-11-22T10:00:00Z',
    '+2026-11-22T10:00:00Z',
    'x2026-11-22T10:00:00Z',
    '2026-11-22T10:00:00Zx',
    '2026-11-22T10:00:00Z ',
    ' 2026-11-22T10:00:00Z',
    '2026-11-22T10',
    '２０２６-11-22T10:00:00Z',
  ])('refuses the malformed %p', (input) => expect(parseInputTimestamp(input)).toBeNull());
});

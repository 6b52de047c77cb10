/**
 * Herald writes date-times in UTC without an offset (`2026-11-23T09:00:00.123456`), which
 * `new Date(text)` would read as local time. Every property named `*_at` holding such a text is
 * turned into a `Date` read as UTC; the microseconds beyond a millisecond are dropped.
 */
const NAIVE_DATE_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;

export function parseUtc(text: string): Date | null {
  const match = NAIVE_DATE_TIME.exec(text);
  if (!match) return null;
  const fraction = (match[2] ?? '').slice(0, 4); // a dot and at most three digits
  return new Date(`${match[1]}${fraction}${match[3] ?? 'Z'}`);
}

/** A copy of a JSON answer with its `*_at` date-times as `Date`s. */
export function withDates<T>(value: unknown): T {
  return convert(value, '') as T;
}

function convert(value: unknown, key: string): unknown {
  if (typeof value === 'string' && key.endsWith('_at')) return parseUtc(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => convert(item, ''));
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [name, inner] of Object.entries(value)) copy[name] = convert(inner, name);
    return copy;
  }
  return value;
}

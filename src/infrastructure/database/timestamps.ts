import { Column, ColumnOptions, CreateDateColumn } from 'typeorm';

/**
 * Timestamps are `timestamptz(6)` read as the database's own text (see data-source.ts), so the
 * microseconds every answer carries are never rounded through a JavaScript Date. TypeORM leaves
 * `timestamptz` values as the driver hands them over.
 */
export type DbTimestamp = string;

export const CreatedAtColumn = (): PropertyDecorator =>
  CreateDateColumn({ type: 'timestamptz', precision: 6, default: () => 'now()' });

export const TimestampColumn = (options: ColumnOptions = {}): PropertyDecorator =>
  Column({ type: 'timestamptz', precision: 6, nullable: true, ...options });

const DB_TIMESTAMP =
  /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(?:Z|[+-]00(?::?00)?)?$/;

/** `2026-11-22 07:47:01.1234+00` → `2026-11-22T07:47:01.123400`. */
export function formatTimestamp(raw: DbTimestamp): string;
export function formatTimestamp(raw: DbTimestamp | null): string | null;
export function formatTimestamp(raw: DbTimestamp | null): string | null {
  if (raw === null) return null;
  const match = DB_TIMESTAMP.exec(raw);
  if (!match) throw new Error(`Unexpected timestamp from the database: ${raw}`);
  return `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(6, '0')}`;
}

const INPUT_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(?:Z|([+-])(\d{2}):?(\d{2}))?$/;

/**
 * Parses an input date-time (docs/api-rules.md#date-times): ISO 8601 with `Z`, an offset, or none
 * (taken as UTC). Returns the instant as an ISO string with microseconds in UTC, or null when it
 * is not valid. A field out of its range (month 13, February 30, hour 24, second 60, year 0050
 * that Date.UTC reads as 1950) makes Date.UTC roll over, so the fields read back differ: one check
 * covers all.
 */
export function parseInputTimestamp(value: string): { iso: string; epochMs: number } | null {
  const match = INPUT_TIMESTAMP.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s = '00', frac = '', sign, oh, om] = match;
  const base = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  if (new Date(base).toISOString().slice(0, 19) !== `${y}-${mo}-${d}T${h}:${mi}:${s}`) return null;
  if (+oh > 23 || +om > 59) return null;
  const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (+oh * 60 + +om) : 0;
  const micros = frac.padEnd(6, '0');
  const instant = base - offsetMinutes * 60_000;
  const utc = new Date(instant).toISOString().slice(0, 19);
  return { iso: `${utc}.${micros}Z`, epochMs: instant + Math.floor(+micros / 1000) };
}

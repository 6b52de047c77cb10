import { Column, ColumnOptions, CreateDateColumn } from 'typeorm';

/** The database's own text (see data-source.ts): microseconds never round through a Date. */
export type DbTimestamp = string;

export const CreatedAtColumn = (): PropertyDecorator =>
  CreateDateColumn({ type: 'timestamptz', precision: 6, default: () => 'now()' });

export const TimestampColumn = (options: ColumnOptions = {}): PropertyDecorator =>
  Column({ type: 'timestamptz', precision: 6, nullable: true, ...options });

const DB_TIMESTAMP =
  /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(?:Z|[+-]00(?::?00)?)?$/;

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

/** docs/api-rules.md#date-times; null when invalid (out-of-range fields roll over: read back). */
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

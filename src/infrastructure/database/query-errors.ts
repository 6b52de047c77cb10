import { QueryFailedError } from 'typeorm';

const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';

/** From QueryFailedError's `driverError`, or pg's own error from a prepared statement. */
function sqlState(error: unknown): string | undefined {
  const raw = error instanceof QueryFailedError ? (error.driverError as unknown) : error;
  const code = (raw as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === UNIQUE_VIOLATION;
}

export function isForeignKeyViolation(error: unknown): boolean {
  return sqlState(error) === FOREIGN_KEY_VIOLATION;
}

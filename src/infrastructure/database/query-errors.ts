import { QueryFailedError } from 'typeorm';

/** PostgreSQL's SQLSTATE for a unique constraint that refused a row. */
const UNIQUE_VIOLATION = '23505';
/** PostgreSQL's SQLSTATE for a row that refers to a row no longer there. */
const FOREIGN_KEY_VIOLATION = '23503';

/**
 * The SQLSTATE of a failed query: TypeORM's QueryFailedError carries pg's error as `driverError`;
 * a prepared statement run on the pool (database/prepared.ts) fails with pg's error itself.
 */
function sqlState(error: unknown): string | undefined {
  const raw = error instanceof QueryFailedError ? (error.driverError as unknown) : error;
  const code = (raw as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether a query failed because a unique constraint already holds that value. */
export function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === UNIQUE_VIOLATION;
}

/** Whether a query failed because a row it refers to was deleted meanwhile. */
export function isForeignKeyViolation(error: unknown): boolean {
  return sqlState(error) === FOREIGN_KEY_VIOLATION;
}

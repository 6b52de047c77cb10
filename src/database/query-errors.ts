import { QueryFailedError } from 'typeorm';

/** PostgreSQL's SQLSTATE for a unique constraint that refused a row. */
const UNIQUE_VIOLATION = '23505';

/** Whether a query failed because a unique constraint already holds that value. */
export function isUniqueViolation(error: unknown): boolean {
  return (
    error instanceof QueryFailedError &&
    (error.driverError as { code?: string }).code === UNIQUE_VIOLATION
  );
}

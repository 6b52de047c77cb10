import { AppError } from './error-codes';

/** Node socket errors: the server is not there or the connection broke. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs of an unavailable server: connection exceptions (08…), shutting down or
 * starting (57P01–57P03), too many connections (53300), a statement cancelled by its timeout
 * (57014).
 */
const POSTGRES_STATES = /^(08\d{3}|57P0[123]|53300|57014)$/;

/** Messages of pg, its pool and ioredis when the other side is gone or does not answer. */
const OUTAGE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Connection is closed|Cannot use a pool after calling end|Client has encountered a connection error|Reached the max retries per request limit|Stream isn't writeable|the database system is (starting up|shutting down)/i;

/**
 * Whether an error means PostgreSQL or Redis is unavailable rather than the request being wrong
 * or the code being broken. Looks through TypeORM's QueryFailedError (driverError) and causes.
 */
export function isOutage(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current);
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || POSTGRES_STATES.test(code)))
      return true;
    if (typeof message === 'string' && OUTAGE_MESSAGES.test(message)) return true;
    const next = current as { driverError?: unknown; cause?: unknown };
    current = next.driverError ?? next.cause;
  }
  return false;
}

/** PostgreSQL or Redis away is `503 service_unavailable` with Retry-After, never a 500. */
export function serviceUnavailable(): AppError {
  return new AppError(
    'service_unavailable',
    'The service is temporarily unavailable; try again shortly',
  );
}

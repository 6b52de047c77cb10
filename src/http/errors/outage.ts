import { AppError } from './error-codes';

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

/** Connection exceptions, shutdown or start, too many connections, statement timeout. */
const POSTGRES_STATES = /^(08\d{3}|57P0[123]|53300|57014)$/;

const OUTAGE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Connection is closed|Cannot use a pool after calling end|Client has encountered a connection error|Reached the max retries per request limit|Stream isn't writeable|the database system is (starting up|shutting down)/i;

/** Looks through TypeORM's QueryFailedError (driverError) and causes. */
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

/** Never a 500. */
export function serviceUnavailable(): AppError {
  return new AppError(
    'service_unavailable',
    'The service is temporarily unavailable; try again shortly',
  );
}

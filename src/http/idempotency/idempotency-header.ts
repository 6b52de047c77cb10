import type { IncomingMessage } from 'node:http';

/** The request header that makes a public POST safe to retry. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/**
 * Whether a request carries an Idempotency-Key: only then is its body hashed for the fingerprint,
 * so a request without one pays nothing for idempotency.
 */
export function carriesIdempotencyKey(req: IncomingMessage): boolean {
  return req.headers[IDEMPOTENCY_HEADER.toLowerCase()] !== undefined;
}

import type { IncomingMessage } from 'node:http';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** Only then is the body hashed, so a request without one pays nothing for idempotency. */
export function carriesIdempotencyKey(req: IncomingMessage): boolean {
  return req.headers[IDEMPOTENCY_HEADER.toLowerCase()] !== undefined;
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import { withDates } from './dates';

/** Headers as Node's `IncomingMessage`, the Fetch API's `Headers` or a plain object carries them. */
export type WebhookHeaders =
  { get(name: string): string | null } | Record<string, string | string[] | undefined>;

/** A webhook event as Herald sends it, with its date-times as `Date`s. */
export interface WebhookEvent {
  type: string;
  timestamp: Date | string;
  data: Record<string, unknown>;
  [key: string]: unknown;
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** How far a signature's timestamp may be from now, as Standard Webhooks recommends. */
const TOLERANCE_SECONDS = 5 * 60;

/**
 * Checks a delivery the Standard Webhooks way and returns its event: the `webhook-signature`
 * header must hold `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>` keyed
 * with the secret, and the timestamp must be within five minutes of now (a replayed old delivery
 * is refused). `rawBody` is the body exactly as received: parsing and re-serialising it changes
 * the bytes. Throws `WebhookVerificationError` when anything does not hold.
 */
export function verifyWebhook(
  secret: string,
  rawBody: string | Buffer | Uint8Array,
  headers: WebhookHeaders,
  now: Date = new Date(),
): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError(
      'Missing webhook-id, webhook-timestamp or webhook-signature',
    );
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('Invalid webhook-timestamp');
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS)
    throw new WebhookVerificationError('The webhook-timestamp is too far from now');

  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('No signature matches the body');
  try {
    return withDates<WebhookEvent>(JSON.parse(body));
  } catch {
    throw new WebhookVerificationError('The body is not JSON');
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const found = Object.keys(record).find((key) => key.toLowerCase() === name);
  const value = found === undefined ? undefined : record[found];
  return Array.isArray(value) ? value[0] : value;
}

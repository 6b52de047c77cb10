import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { request } from 'undici';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { AppError } from '../../http/errors/error-codes';
import { OutboundDispatchers } from '../../infrastructure/outbound/outbound-dispatchers';
import { HostAdmission, type AddressPins } from '../../infrastructure/outbound/pinned-address';
import { signWebhook } from './webhook-signature';
import { admitWebhookUrl } from './webhook-url';

/** The rest is dropped with the connection. */
export const MAX_ANSWER_BYTES = 4_096;
const USER_AGENT = 'Herald-Webhooks/1';

export interface WebhookMessage {
  url: string;
  secret: string;
  eventId: string;
  body: string;
}

/** A 2xx is success, anything else (3xx included) a failure. */
export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** Standard Webhooks; the URL re-checked and pinned each attempt, no redirects, one time limit. */
@Injectable()
export class WebhookSender {
  private readonly timeoutMs: number;

  constructor(
    @InjectConfig() config: AppConfig,
    private readonly hosts: HostAdmission,
    private readonly dispatchers: OutboundDispatchers,
  ) {
    this.timeoutMs = config.webhooks.timeoutMs;
  }

  /** Throws `invalid_url` / `url_not_allowed`. */
  async check(url: string): Promise<void> {
    await admitWebhookUrl(url, this.hosts);
  }

  async send(message: WebhookMessage): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const controller = new AbortController();
    const signal = controller.signal;
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    const pins: AddressPins = new Map();
    try {
      const url = await raceSignal(admitWebhookUrl(message.url, this.hosts, pins), signal);
      const timestamp = Math.floor(Date.now() / 1000);
      const { statusCode, body } = await request(url, {
        dispatcher: this.dispatchers.pinned(url, pins),
        method: 'POST',
        signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'webhook-id': message.eventId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(
            message.secret,
            message.eventId,
            timestamp,
            message.body,
          ),
        },
        body: message.body,
      });
      await readSome(body, MAX_ANSWER_BYTES);
      const ok = statusCode >= 200 && statusCode <= 299;
      return {
        ok,
        statusCode,
        error: ok ? null : `The receiver answered ${statusCode}`,
        durationMs: elapsed(),
      };
    } catch (error) {
      return { ok: false, statusCode: null, error: describe(error, signal), durationMs: elapsed() };
    } finally {
      clearTimeout(timer);
    }
  }
}

async function readSome(body: Readable, limit: number): Promise<void> {
  body.on('error', () => undefined);
  let read = 0;
  try {
    for await (const chunk of body) {
      read += (chunk as Buffer).length;
      if (read >= limit) break;
    }
  } finally {
    body.destroy();
  }
}

function raceSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Never the secret, never the answer's content. */
function describe(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'The receiver did not answer in time';
  if (error instanceof AppError) return `${error.code}: ${error.message}`;
  const code = (error as NodeJS.ErrnoException)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code ? `${code}: ${message}` : message;
}

import { Injectable, Optional } from '@nestjs/common';
import { type Dispatcher, request } from 'undici';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { Metrics, type PlatformCallOutcome } from '../../../infrastructure/metrics/metrics.service';
import { OutboundDispatchers } from '../../../infrastructure/outbound/outbound-dispatchers';
import { blueskySettings } from './bluesky-settings';

/** Default wait for one XRPC call. */
const XRPC_TIMEOUT_MS = 15_000;

/**
 * The service answered, and said no: the HTTP status and XRPC's `{error, message}` body
 * (`ExpiredToken`, `AuthenticationRequired`, `InvalidRequest`, `RecordNotFound`, …). No token
 * ever appears in it.
 */
export class XrpcError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    /** From a 429's `ratelimit-reset` (seconds since the epoch): ms until the window resets. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(`Bluesky ${status} ${error}: ${description}`);
  }
}

/**
 * The request may or may not have reached the service: a time-out or a broken connection after
 * sending. `sent` tells whether the request had been handed to the network.
 */
export class XrpcTransportError extends Error {
  constructor(
    message: string,
    readonly sent: boolean,
  ) {
    super(message);
  }
}

/** One XRPC call: a query (GET with params) or a procedure (POST with a JSON or byte body). */
export interface XrpcCall {
  /** The account's service; null for the operator's (BLUESKY_SERVICE_URL). */
  service: string | null;
  nsid: string;
  /** Bearer token: an access or a refresh JWT. */
  token?: string;
  params?: Record<string, string>;
  json?: unknown;
  bytes?: { body: NodeJS.ReadableStream | Buffer; contentType: string; length: number };
  timeoutMs?: number;
}

/**
 * A thin XRPC client for the few AT Protocol calls Herald makes. Written here rather than taken from
 * @atproto/api's agent: that agent keeps its session in memory per process and renews it on its
 * own, while Herald keeps one session per account sealed in the database for every worker, and
 * every call to an address a user gave must go through the outbound rules. A user-given service
 * is checked at every call; the operator's is not.
 */
@Injectable()
export class BlueskyXrpc {
  constructor(
    @InjectConfig() private readonly config: AppConfig,
    private readonly outbound: OutboundDispatchers,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  async call<T>(call: XrpcCall): Promise<T> {
    const started = performance.now();
    let outcome: PlatformCallOutcome = 'ok';
    try {
      return await this.send<T>(call);
    } catch (error) {
      outcome = error instanceof XrpcError ? 'api_error' : 'transport_error';
      throw error;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      this.metrics?.platformCall('bluesky', call.nsid, outcome, seconds);
    }
  }

  private async send<T>(call: XrpcCall): Promise<T> {
    const base = call.service ?? blueskySettings(this.config).serviceUrl;
    const dispatcher = call.service
      ? await this.outbound.for(call.service, 'be a Bluesky service')
      : undefined;
    const url = new URL(`${base.replace(/\/+$/, '')}/xrpc/${call.nsid}`);
    for (const [name, value] of Object.entries(call.params ?? {}))
      url.searchParams.set(name, value);
    const headers: Record<string, string> = {};
    if (call.token) headers.authorization = `Bearer ${call.token}`;
    let body: string | Buffer | NodeJS.ReadableStream | undefined;
    if (call.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.json);
    } else if (call.bytes) {
      headers['content-type'] = call.bytes.contentType;
      headers['content-length'] = String(call.bytes.length);
      body = call.bytes.body;
    }
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new DOMException('The call timed out', 'TimeoutError')),
      call.timeoutMs ?? XRPC_TIMEOUT_MS,
    );
    try {
      let response: Dispatcher.ResponseData;
      try {
        response = await request(url, {
          method: body === undefined ? 'GET' : 'POST',
          headers,
          body: body as Dispatcher.DispatchOptions['body'],
          signal: abort.signal,
          ...(dispatcher ? { dispatcher } : {}),
        });
      } catch (error) {
        throw transportError(call.nsid, error);
      }
      return await readAnswer<T>(response, call.nsid);
    } finally {
      clearTimeout(timer);
    }
  }
}

async function readAnswer<T>(response: Dispatcher.ResponseData, nsid: string): Promise<T> {
  let text: string;
  try {
    text = await response.body.text();
  } catch (error) {
    throw transportError(nsid, error);
  }
  let parsed: unknown;
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (response.statusCode >= 200 && response.statusCode < 300) {
    if (parsed === null)
      throw new XrpcError(response.statusCode, 'InvalidResponse', 'The answer is not JSON');
    return parsed as T;
  }
  const failure = (parsed ?? {}) as { error?: unknown; message?: unknown };
  const reset = Number(header(response, 'ratelimit-reset'));
  const retryAfterMs =
    response.statusCode === 429 && Number.isFinite(reset) && reset > 0
      ? Math.max(0, reset * 1000 - Date.now())
      : null;
  throw new XrpcError(
    response.statusCode,
    typeof failure.error === 'string' ? failure.error : `HTTP ${response.statusCode}`,
    typeof failure.message === 'string' ? failure.message : `HTTP ${response.statusCode}`,
    retryAfterMs,
  );
}

function header(response: Dispatcher.ResponseData, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A failed request: sent unless the connection was refused or the name did not resolve. */
function transportError(nsid: string, error: unknown): XrpcTransportError {
  const failure = error as { code?: unknown; cause?: { code?: unknown }; name?: string };
  const code = [failure.code, failure.cause?.code].find((c) => typeof c === 'string') as
    string | undefined;
  const sent = !['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(code ?? '');
  return new XrpcTransportError(`Bluesky ${nsid} failed: ${code ?? failure.name}`, sent);
}

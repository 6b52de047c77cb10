import { Injectable, Optional } from '@nestjs/common';
import { AtpBaseClient, XRPCError } from '@atproto/api';
import { type Dispatcher, fetch } from 'undici';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { Metrics, type PlatformCallOutcome } from '../../../infrastructure/metrics/metrics.service';
import { AppError } from '../../../http/errors/error-codes';
import {
  HostUnresolvedError,
  OutboundDispatchers,
} from '../../../infrastructure/outbound/outbound-dispatchers';
import { blueskySettings } from './bluesky-settings';

const XRPC_TIMEOUT_MS = 15_000;
/** One client per service, oldest out first (each parses the lexicons once). */
const MAX_CLIENTS = 64;

/** The service said no: HTTP status and XRPC's `{error, message}`; never holds a token. */
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

/** The request may or may not have reached the service; `sent`: it was handed to the network. */
export class XrpcTransportError extends Error {
  constructor(
    message: string,
    readonly sent: boolean,
  ) {
    super(message);
  }
}

export interface XrpcTarget {
  /** Null for the operator's (BLUESKY_SERVICE_URL). */
  service: string | null;
  /** An access or a refresh JWT. */
  token?: string;
  timeoutMs?: number;
  /** Given the answer's headers, a refusal's included (its `ratelimit-*`). */
  onHeaders?: (headers: Record<string, string | undefined>) => void;
}

export interface XrpcCallOptions {
  headers: Record<string, string>;
  signal: AbortSignal;
}

/** Lexicon-driven calls over our transport: checked outbound address, the shared session. */
@Injectable()
export class BlueskyXrpc {
  private readonly clients = new Map<string, AtpBaseClient>();

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    private readonly outbound: OutboundDispatchers,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  /** XrpcError for the service's refusals, XrpcTransportError when no answer came. */
  async call<T>(
    target: XrpcTarget,
    send: (
      client: AtpBaseClient,
      options: XrpcCallOptions,
    ) => Promise<{ data: T; headers?: Record<string, string | undefined> }>,
  ): Promise<T> {
    const options: XrpcCallOptions = {
      headers: target.token ? { authorization: `Bearer ${target.token}` } : {},
      signal: AbortSignal.timeout(target.timeoutMs ?? XRPC_TIMEOUT_MS),
    };
    try {
      const answer = await send(this.clientOf(target.service), options);
      if (answer.headers) target.onHeaders?.(answer.headers);
      return answer.data;
    } catch (error) {
      if (error instanceof XRPCError && error.headers) target.onHeaders?.(error.headers);
      throw fromClientError(error);
    }
  }

  private clientOf(service: string | null): AtpBaseClient {
    const key = service ?? '';
    let client = this.clients.get(key);
    if (client) {
      this.clients.delete(key);
    } else {
      client = new AtpBaseClient((path, init) => this.fetch(service, path, init));
      if (this.clients.size >= MAX_CLIENTS) this.clients.delete(this.clients.keys().next().value!);
    }
    this.clients.set(key, client);
    return client;
  }

  private async fetch(service: string | null, path: string, init: RequestInit): Promise<Response> {
    const nsid = new URL(path, 'http://xrpc').pathname.replace(/^\/xrpc\//, '');
    const started = performance.now();
    let outcome: PlatformCallOutcome = 'ok';
    try {
      const base = (service ?? blueskySettings(this.config).serviceUrl).replace(/\/+$/, '');
      const dispatcher: Dispatcher | undefined = service
        ? await this.outbound.for(service, 'be a Bluesky service')
        : undefined;
      let response: Awaited<ReturnType<typeof fetch>>;
      try {
        response = await fetch(`${base}${path}`, {
          ...(init as Parameters<typeof fetch>[1]),
          // A redirect would leave the checked address.
          redirect: 'error',
          ...(dispatcher ? { dispatcher } : {}),
        });
      } catch (error) {
        throw transportError(nsid, error);
      }
      if (response.status < 200 || response.status >= 300) outcome = 'api_error';
      // Read here, so that a connection lost while reading is a transport failure.
      let body: ArrayBuffer;
      try {
        body = await response.arrayBuffer();
      } catch (error) {
        throw transportError(nsid, error);
      }
      return new Response(body.byteLength > 0 ? body : null, {
        status: response.status,
        headers: response.headers as unknown as Headers,
      });
    } catch (error) {
      outcome = 'transport_error';
      throw error;
    } finally {
      this.metrics?.platformCall('bluesky', nsid, outcome, (performance.now() - started) / 1000);
    }
  }
}

function fromClientError(error: unknown): unknown {
  if (!(error instanceof XRPCError)) return error;
  const cause = (error as { cause?: unknown }).cause;
  if (
    cause instanceof XrpcTransportError ||
    cause instanceof HostUnresolvedError ||
    cause instanceof AppError
  )
    return cause;
  const status = error.status;
  const reset = Number(error.headers?.['ratelimit-reset']);
  const retryAfterMs =
    status === 429 && Number.isFinite(reset) && reset > 0
      ? Math.max(0, reset * 1000 - Date.now())
      : null;
  return new XrpcError(
    status,
    error.error ?? `HTTP ${status}`,
    error.message || `HTTP ${status}`,
    retryAfterMs,
  );
}

/** Sent unless the connection was refused or the name did not resolve. */
function transportError(nsid: string, error: unknown): XrpcTransportError {
  const failure = error as { code?: unknown; cause?: { code?: unknown }; name?: string };
  const code = [failure.code, failure.cause?.code].find((c) => typeof c === 'string') as
    string | undefined;
  const sent = !['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(code ?? '');
  return new XrpcTransportError(`Bluesky ${nsid} failed: ${code ?? failure.name}`, sent);
}

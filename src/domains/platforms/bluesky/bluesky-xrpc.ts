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

/** Default wait for one XRPC call. */
const XRPC_TIMEOUT_MS = 15_000;
/** Clients kept, one per service; the oldest goes first (each parses the lexicons once). */
const MAX_CLIENTS = 64;

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

/** Where a call goes and with what: the account's service and a token of its session. */
export interface XrpcTarget {
  /** The account's service; null for the operator's (BLUESKY_SERVICE_URL). */
  service: string | null;
  /** Bearer token: an access or a refresh JWT. */
  token?: string;
  timeoutMs?: number;
}

/** What a call of the lexicon-driven client takes beside its params and input. */
export interface XrpcCallOptions {
  headers: Record<string, string>;
  signal: AbortSignal;
}

/**
 * The AT Protocol calls Herald makes, through `@atproto/api`'s lexicon-driven base client: each
 * method's HTTP method, query parameters, input and its encoding come from its lexicon (a procedure
 * without input is sent without a body), and each answer is checked against its output schema.
 * Herald supplies only the transport, a `fetchHandler` that sends to the service's address as the
 * outbound rules checked it (a user-given service is checked at every call; the operator's is not)
 * with the token of the account's one shared session (kept sealed in the database, renewed by
 * BlueskySessions), never the agent's own per-process session.
 */
@Injectable()
export class BlueskyXrpc {
  private readonly clients = new Map<string, AtpBaseClient>();

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    private readonly outbound: OutboundDispatchers,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  /**
   * Runs one call on the client of `target.service`, with its token and time limit: Herald's
   * XrpcError for the service's refusals, XrpcTransportError when no answer came.
   */
  async call<T>(
    target: XrpcTarget,
    send: (client: AtpBaseClient, options: XrpcCallOptions) => Promise<{ data: T }>,
  ): Promise<T> {
    const options: XrpcCallOptions = {
      headers: target.token ? { authorization: `Bearer ${target.token}` } : {},
      signal: AbortSignal.timeout(target.timeoutMs ?? XRPC_TIMEOUT_MS),
    };
    try {
      return (await send(this.clientOf(target.service), options)).data;
    } catch (error) {
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

  /** The client's transport: `path` is `/xrpc/<nsid>?<params>`, the rest the lexicon decided. */
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
      // The body is read here, so that a connection lost while reading is a transport failure.
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

/** The client's failures as Herald's: the service's answer, or no answer at all. */
function fromClientError(error: unknown): unknown {
  if (!(error instanceof XRPCError)) return error;
  // The transport's own failures (no answer, an address refused) come back wrapped.
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

/** A failed request: sent unless the connection was refused or the name did not resolve. */
function transportError(nsid: string, error: unknown): XrpcTransportError {
  const failure = error as { code?: unknown; cause?: { code?: unknown }; name?: string };
  const code = [failure.code, failure.cause?.code].find((c) => typeof c === 'string') as
    string | undefined;
  const sent = !['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(code ?? '');
  return new XrpcTransportError(`Bluesky ${nsid} failed: ${code ?? failure.name}`, sent);
}

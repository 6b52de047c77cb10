import { Injectable, Optional } from '@nestjs/common';
import { Dispatcher, FormData, request } from 'undici';
import { Metrics, type PlatformCallOutcome } from '../../../infrastructure/metrics/metrics.service';
import { OutboundDispatchers } from '../../../infrastructure/outbound/outbound-dispatchers';
import {
  msUntilReset,
  rateLimitReport,
  UNPACED,
  type RateLimitObserver,
  type RateLimitReport,
} from '../rate-limit-report';

export const MASTODON_TIMEOUT_MS = 15_000;

/** Sealed at rest, never logged. */
export interface MastodonCredentials {
  /** The origin, e.g. `https://mastodon.social`. */
  instanceUrl: string;
  /** Empty for the calls an application makes before it has one (registering, the code exchange). */
  accessToken: string;
}

/** An application registered on an instance (`POST /api/v1/apps`). */
export interface MastodonApp {
  client_id: string;
  client_secret: string;
}

/** The token endpoint's answer (RFC 6749 §5.1). */
export interface MastodonToken {
  access_token: string;
  token_type?: string;
  scope?: string;
}

export interface MastodonAccount {
  id: string;
  username: string;
  acct: string;
  display_name?: string | null;
  url?: string | null;
}

export interface MastodonInstance {
  configuration?: {
    statuses?: {
      max_characters?: number;
      max_media_attachments?: number;
      characters_reserved_per_url?: number;
    };
    media_attachments?: { image_size_limit?: number; video_size_limit?: number };
  };
}

export interface MastodonAttachment {
  id: string;
  type: string;
  url: string | null;
}

export interface MastodonStatus {
  id: string;
  url?: string | null;
  uri?: string;
}

/** `retryAfterMs` is how long a 429 asks to wait (from its X-RateLimit-Reset). */
export class MastodonApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(`Mastodon ${status}: ${reason}`);
  }
}

/** `sent` false: it never reached the instance; true: it may have been served. */
export class MastodonTransportError extends Error {
  constructor(
    message: string,
    readonly sent: boolean,
  ) {
    super(message);
  }
}

export const INSTANCE_USE = 'be a Mastodon instance';

const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;

const NOT_SENT_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'];

type CallName =
  | 'verify_credentials'
  | 'instance'
  | 'upload_media'
  | 'get_media'
  | 'post_status'
  | 'register_app'
  | 'token';

interface CallInit {
  method: 'GET' | 'POST';
  path: string;
  body?: string | FormData;
  headers?: Record<string, string>;
  budget?: { window: RateLimitReport['window']; observe: RateLimitObserver };
}

interface Answer<T> {
  status: number;
  body: T;
}

/** The instance is user-given: every call goes through the outbound address rules. */
@Injectable()
export class MastodonApi {
  constructor(
    private readonly dispatchers: OutboundDispatchers,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  verifyCredentials(credentials: MastodonCredentials, signal: AbortSignal) {
    return this.call<MastodonAccount>(credentials, 'verify_credentials', signal, {
      method: 'GET',
      path: '/api/v1/accounts/verify_credentials',
    }).then((answer) => answer.body);
  }

  /** Null on a server without the v2 instance route (404). */
  async instance(
    credentials: MastodonCredentials,
    signal: AbortSignal,
  ): Promise<MastodonInstance | null> {
    try {
      const answer = await this.call<MastodonInstance>(credentials, 'instance', signal, {
        method: 'GET',
        path: '/api/v2/instance',
      });
      return answer.body;
    } catch (error) {
      if (error instanceof MastodonApiError && error.status === 404) return null;
      throw error;
    }
  }

  /** 200 when the medium is ready, 202 while the instance processes it. */
  uploadMedia(credentials: MastodonCredentials, form: FormData, signal: AbortSignal) {
    return this.call<MastodonAttachment>(credentials, 'upload_media', signal, {
      method: 'POST',
      path: '/api/v2/media',
      body: form,
    });
  }

  /** 206 while processing, 200 once ready; its headers report the token's request window. */
  getMedia(
    credentials: MastodonCredentials,
    id: string,
    signal: AbortSignal,
    observe: RateLimitObserver = UNPACED,
  ) {
    return this.call<MastodonAttachment>(credentials, 'get_media', signal, {
      method: 'GET',
      path: `/api/v1/media/${encodeURIComponent(id)}`,
      budget: { window: 'channel', observe },
    });
  }

  /** Same status for the same `idempotencyKey`; its headers report the statuses window. */
  postStatus(
    credentials: MastodonCredentials,
    status: { status: string; media_ids: string[]; visibility: 'public'; in_reply_to_id?: string },
    idempotencyKey: string,
    signal: AbortSignal,
    observe: RateLimitObserver = UNPACED,
  ) {
    return this.call<MastodonStatus>(credentials, 'post_status', signal, {
      method: 'POST',
      path: '/api/v1/statuses',
      body: JSON.stringify(status),
      headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      budget: { window: 'account', observe },
    }).then((answer) => answer.body);
  }

  /** Registers Herald as an application of the instance, for the authorization-code flow. */
  registerApp(
    instanceUrl: string,
    app: { client_name: string; redirect_uris: string; scopes: string; website?: string },
    signal: AbortSignal,
  ) {
    return this.call<MastodonApp>({ instanceUrl, accessToken: '' }, 'register_app', signal, {
      method: 'POST',
      path: '/api/v1/apps',
      body: JSON.stringify(app),
      headers: { 'content-type': 'application/json' },
    }).then((answer) => answer.body);
  }

  /** `POST /oauth/token`: an authorization code (with its PKCE verifier) for an access token. */
  exchangeCode(
    instanceUrl: string,
    grant: {
      client: MastodonApp;
      code: string;
      redirectUri: string;
      codeVerifier: string;
      scope: string;
    },
    signal: AbortSignal,
  ) {
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri,
      client_id: grant.client.client_id,
      client_secret: grant.client.client_secret,
      code_verifier: grant.codeVerifier,
      scope: grant.scope,
    });
    return this.call<MastodonToken>({ instanceUrl, accessToken: '' }, 'token', signal, {
      method: 'POST',
      path: '/oauth/token',
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }).then((answer) => answer.body);
  }

  private async call<T>(
    credentials: MastodonCredentials,
    name: CallName,
    signal: AbortSignal,
    init: CallInit,
  ): Promise<Answer<T>> {
    const started = performance.now();
    let outcome: PlatformCallOutcome = 'ok';
    try {
      return await this.send<T>(credentials, name, signal, init);
    } catch (error) {
      outcome = error instanceof MastodonApiError ? 'api_error' : 'transport_error';
      throw error;
    } finally {
      this.metrics?.platformCall('mastodon', name, outcome, (performance.now() - started) / 1000);
    }
  }

  private async send<T>(
    credentials: MastodonCredentials,
    name: CallName,
    signal: AbortSignal,
    init: CallInit,
  ): Promise<Answer<T>> {
    const url = new URL(init.path, credentials.instanceUrl).toString();
    const dispatcher = await this.dispatchers.for(url, INSTANCE_USE);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        dispatcher,
        method: init.method,
        body: init.body,
        headers: {
          accept: 'application/json',
          ...(credentials.accessToken
            ? { authorization: `Bearer ${credentials.accessToken}` }
            : {}),
          ...init.headers,
        },
        signal,
      });
    } catch (error) {
      throw transportError(name, error);
    }
    if (init.budget) {
      const headers = response.headers;
      const report = rateLimitReport(
        init.budget.window,
        headerOf(headers['x-ratelimit-remaining']),
        msUntilReset(headerOf(headers['x-ratelimit-reset']), headerOf(headers['date'])),
      );
      if (report) init.budget.observe(report);
    }
    if (response.statusCode >= 300 && response.statusCode < 400) {
      // Redirects are never followed (each call goes to the checked address): say where to.
      await response.body.dump().catch(() => undefined);
      throw new MastodonApiError(response.statusCode, redirectReason(response.headers.location));
    }
    let body: unknown;
    try {
      body = await response.body.json();
    } catch (error) {
      response.body.destroy();
      if (signal.aborted) throw transportError(name, error);
      if (response.statusCode >= 200 && response.statusCode < 300)
        throw new MastodonApiError(response.statusCode, 'Unreadable answer');
      throw new MastodonApiError(
        response.statusCode,
        `Unreadable answer (HTTP ${response.statusCode})`,
      );
    }
    if (response.statusCode >= 200 && response.statusCode < 300)
      return { status: response.statusCode, body: body as T };
    throw new MastodonApiError(
      response.statusCode,
      reasonOf(body, response.statusCode),
      response.statusCode === 429 ? rateLimitWaitMs(response.headers) : null,
    );
  }
}

function redirectReason(location: string | string[] | undefined): string {
  const target = Array.isArray(location) ? location[0] : location;
  let origin: string | null = null;
  try {
    origin = target ? new URL(target).origin : null;
  } catch {
    origin = null;
  }
  return origin
    ? `The instance redirects to ${origin}; give that address as instance_url`
    : 'The instance answered with a redirect; give its own address as instance_url';
}

function reasonOf(body: unknown, status: number): string {
  const { error, error_description: description } = (body ?? {}) as {
    error?: unknown;
    error_description?: unknown;
  };
  const parts = [error, description].filter(
    (part): part is string => typeof part === 'string' && part !== '',
  );
  return parts.length > 0 ? parts.join(': ') : `HTTP ${status}`;
}

/** Until X-RateLimit-Reset, from the answer's Date so a skewed clock never shortens it; ≥ 1 s. */
export function rateLimitWaitMs(
  headers: Record<string, string | string[] | undefined>,
  now = Date.now(),
): number {
  const reset = Date.parse(String(headers['x-ratelimit-reset'] ?? ''));
  if (Number.isNaN(reset)) return DEFAULT_RATE_LIMIT_WAIT_MS;
  const answered = Date.parse(String(headers['date'] ?? ''));
  const wait = Number.isNaN(answered) ? reset - now : reset - answered;
  return Math.max(1_000, Math.ceil(wait));
}

function headerOf(value: string | string[] | undefined): string | null {
  return typeof value === 'string' ? value : Array.isArray(value) ? (value[0] ?? null) : null;
}

/** Never names the URL or the token. */
function transportError(name: CallName, error: unknown): MastodonTransportError {
  const failure = error as { code?: unknown; name?: unknown; cause?: { code?: unknown } };
  const code = [failure.code, failure.cause?.code].find((c) => typeof c === 'string') as
    string | undefined;
  const sent = !NOT_SENT_CODES.includes(code ?? '');
  const reason = code ?? (typeof failure.name === 'string' ? failure.name : 'Error');
  return new MastodonTransportError(`Mastodon ${name} failed: ${reason}`, sent);
}

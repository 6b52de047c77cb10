import { Injectable, Optional } from '@nestjs/common';
import type { File } from 'node:buffer';
import { Dispatcher, FormData, request } from 'undici';
import type {
  APIChannel,
  APIMessage,
  APIUser,
  RESTError,
  RESTErrorData,
  RESTPostAPIChannelMessageJSONBody,
  RESTRateLimit,
} from 'discord-api-types/v10';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { Metrics, type PlatformCallOutcome } from '../../../infrastructure/metrics/metrics.service';
import { DeliveryError } from '../platform';
import { discordSettings } from './discord-settings';
import {
  rateLimitReport,
  UNPACED,
  type RateLimitObserver,
  type RateLimitReport,
} from '../rate-limit-report';

const DISCORD_TIMEOUT_MS = 15_000;

/** Discord asks every client to state its version in its User-Agent. */
const CLIENT_VERSION = '1.0';

const NOT_SENT_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'];

export interface DiscordRateLimit {
  bucket: string | null;
  limit: number | null;
  remaining: number | null;
  /** `X-RateLimit-Reset-After`. */
  resetAfterSeconds: number | null;
  /** `user`, `global` or `shared`, on a 429 only. */
  scope: string | null;
}

/** Discord's JSON error code for a channel that does not exist (or that the bot cannot see). */
const UNKNOWN_CHANNEL = 10003;

/** Discord said no; `code` is its JSON error code (0 when none). Never holds the bot token. */
export class DiscordApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly description: string,
    readonly retryAfterMs: number | null = null,
    /** On a 429: the bot's limit over all routes, not one route's. */
    readonly global = false,
    readonly rateLimit: DiscordRateLimit | null = null,
  ) {
    super(`Discord error ${status}: ${description}`);
  }
}

/** The request may or may not have reached Discord; `sent`: it was handed to the network. */
export class DiscordTransportError extends Error {
  constructor(
    message: string,
    readonly sent: boolean,
  ) {
    super(message);
  }
}

export type DiscordMethod = 'getCurrentUser' | 'getChannel' | 'createMessage';

/** One request, one answer: no retries or queue, since Herald paces sends and judges failures. */
@Injectable()
export class DiscordApi {
  constructor(
    @InjectConfig() private readonly config: AppConfig,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  getCurrentUser(token: string): Promise<APIUser> {
    return this.call<APIUser>(token, 'getCurrentUser', 'GET', '/users/@me');
  }

  getChannel(token: string, channelId: string): Promise<APIChannel> {
    const path = `/channels/${encodeURIComponent(channelId)}`;
    return this.call<APIChannel>(token, 'getChannel', 'GET', path);
  }

  /** With files: multipart, `payload_json` and `files[n]`; bucket headers go to `observe`. */
  createMessage(
    token: string,
    channelId: string,
    body: RESTPostAPIChannelMessageJSONBody,
    files: readonly File[],
    timeoutMs: number,
    observe: RateLimitObserver = UNPACED,
  ): Promise<APIMessage> {
    const path = `/channels/${encodeURIComponent(channelId)}/messages`;
    let payload: object | FormData = body;
    if (files.length > 0) {
      const form = new FormData();
      form.append('payload_json', JSON.stringify(body));
      for (const [index, file] of files.entries()) form.append(`files[${index}]`, file);
      payload = form;
    }
    return this.call<APIMessage>(token, 'createMessage', 'POST', path, payload, timeoutMs, observe);
  }

  private async call<T>(
    token: string,
    method: DiscordMethod,
    httpMethod: 'GET' | 'POST',
    path: string,
    body?: object | FormData,
    timeoutMs = DISCORD_TIMEOUT_MS,
    observe: RateLimitObserver = UNPACED,
  ): Promise<T> {
    const started = performance.now();
    let outcome: PlatformCallOutcome = 'ok';
    try {
      return await this.send<T>(token, method, httpMethod, path, body, timeoutMs, observe);
    } catch (error) {
      outcome = error instanceof DiscordApiError ? 'api_error' : 'transport_error';
      throw error;
    } finally {
      this.metrics?.platformCall('discord', method, outcome, (performance.now() - started) / 1000);
    }
  }

  /** Bounded by `timeoutMs`, its answer read included. */
  private async send<T>(
    token: string,
    method: DiscordMethod,
    httpMethod: 'GET' | 'POST',
    path: string,
    body: object | FormData | undefined,
    timeoutMs: number,
    observe: RateLimitObserver,
  ): Promise<T> {
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new DOMException('The call timed out', 'TimeoutError')),
      timeoutMs,
    );
    try {
      return await this.sendWithin<T>(token, method, httpMethod, path, body, abort.signal, observe);
    } finally {
      clearTimeout(timer);
    }
  }

  private async sendWithin<T>(
    token: string,
    method: DiscordMethod,
    httpMethod: 'GET' | 'POST',
    path: string,
    body: object | FormData | undefined,
    signal: AbortSignal,
    observe: RateLimitObserver,
  ): Promise<T> {
    const headers: Record<string, string> = {
      authorization: `Bot ${token}`,
      'user-agent': `DiscordBot (${this.config.publicBaseUrl}, ${CLIENT_VERSION})`,
    };
    const json = body !== undefined && !(body instanceof FormData);
    if (json) headers['content-type'] = 'application/json';
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${discordSettings(this.config).apiBaseUrl}${path}`, {
        method: httpMethod,
        headers,
        body: json ? JSON.stringify(body) : (body as FormData | undefined),
        signal,
      });
    } catch (error) {
      throw transportError(method, error);
    }
    const budget = bucketReport(response.headers);
    if (budget) observe(budget);
    let answer: unknown;
    try {
      answer = await response.body.json();
    } catch (error) {
      response.body.destroy();
      // A body cut off mid-way after a success is an answer lost: the message may exist.
      if (response.statusCode < 300) throw transportError(method, error);
      answer = undefined;
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return answer as T;
    throw apiError(response.statusCode, response.headers, answer);
  }
}

function transportError(method: DiscordMethod, error: unknown): DiscordTransportError {
  const failure = error as { code?: unknown; cause?: { code?: unknown } };
  const code = [failure.code, failure.cause?.code].find((c) => typeof c === 'string') as
    string | undefined;
  const reason = code ?? (error as Error).name;
  return new DiscordTransportError(
    `Discord ${method} failed: ${reason}`,
    !NOT_SENT_CODES.includes(code ?? ''),
  );
}

function apiError(
  status: number,
  headers: Dispatcher.ResponseData['headers'],
  answer: unknown,
): DiscordApiError {
  const rateLimit = rateLimitHeaders(headers);
  const body = (typeof answer === 'object' && answer !== null ? answer : {}) as Partial<
    RESTError & RESTRateLimit
  >;
  const message =
    typeof body.message === 'string' ? body.message : `Unreadable answer (HTTP ${status})`;
  const details = body.errors === undefined ? [] : fieldErrors(body.errors, '').slice(0, 3);
  const description = details.length > 0 ? `${message} (${details.join('; ')})` : message;
  const code = typeof body.code === 'number' ? body.code : 0;
  if (status !== 429) return new DiscordApiError(status, code, description, null, false, rateLimit);
  // retry_after is exact; the headers say the same for an answer without a readable body.
  const seconds =
    numeric(body.retry_after) ??
    numeric(header(headers, 'retry-after')) ??
    rateLimit.resetAfterSeconds;
  const global = body.global === true || header(headers, 'x-ratelimit-global') === 'true';
  return new DiscordApiError(
    status,
    code,
    description,
    Math.max(1, Math.ceil((seconds ?? 1) * 1000)),
    global,
    rateLimit,
  );
}

function fieldErrors(data: RESTErrorData, path: string): string[] {
  if (typeof data === 'string') return [path ? `${path}: ${data}` : data];
  if ('_errors' in data && Array.isArray(data._errors)) {
    return data._errors.flatMap((entry) =>
      typeof entry === 'object' && entry !== null && 'message' in entry
        ? [`${path || 'body'}: ${String(entry.message)}`]
        : fieldErrors(entry, path),
    );
  }
  if ('code' in data && 'message' in data && typeof data.message === 'string')
    return [`${path || 'body'}: ${data.message}`];
  return Object.entries(data).flatMap(([key, value]) =>
    fieldErrors(value as RESTErrorData, path ? `${path}.${key}` : key),
  );
}

/** A route bucket's headers (never the global limit's, which no bucket holds) as a report. */
function bucketReport(headers: Dispatcher.ResponseData['headers']): RateLimitReport | null {
  if (header(headers, 'x-ratelimit-global') === 'true') return null;
  const resetAfter = numeric(header(headers, 'x-ratelimit-reset-after'));
  return rateLimitReport(
    'channel',
    header(headers, 'x-ratelimit-remaining'),
    resetAfter === null ? null : resetAfter * 1000,
  );
}

function rateLimitHeaders(headers: Dispatcher.ResponseData['headers']): DiscordRateLimit {
  return {
    bucket: header(headers, 'x-ratelimit-bucket'),
    limit: numeric(header(headers, 'x-ratelimit-limit')),
    remaining: numeric(header(headers, 'x-ratelimit-remaining')),
    resetAfterSeconds: numeric(header(headers, 'x-ratelimit-reset-after')),
    scope: header(headers, 'x-ratelimit-scope'),
  };
}

function header(headers: Dispatcher.ResponseData['headers'], name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? (value[0] ?? null) : null;
}

function numeric(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 ? number : null;
}

/** 429 waits, refused token reconnects, 4xx rejects, 5xx or unsent retries, else unconfirmed. */
export function toDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof DiscordApiError) {
    const what = `Discord ${error.status}: ${error.description}`;
    if (error.status === 429) return new DeliveryError('rate_limited', what, error.retryAfterMs);
    if (error.status === 401) return new DeliveryError('unauthorized', what);
    if (error.status >= 500) return new DeliveryError('transient', what);
    const gone = error.status === 404 && error.code === UNKNOWN_CHANNEL;
    return new DeliveryError(gone ? 'channel_gone' : 'rejected', what, null, 'discord_rejected');
  }
  if (error instanceof DiscordTransportError) {
    return error.sent
      ? new DeliveryError(
          'unconfirmed',
          'The send went out but no answer came back; it may or may not have been delivered',
        )
      : new DeliveryError('transient', error.message);
  }
  return new DeliveryError('transient', (error as Error).message ?? 'Unknown error');
}

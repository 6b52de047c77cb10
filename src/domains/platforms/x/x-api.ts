import { Injectable, Optional } from '@nestjs/common';
import { ApiError, Client } from '@xdevplatform/xdk';
import { request } from 'undici';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { Metrics, type PlatformCallOutcome } from '../../../infrastructure/metrics/metrics.service';
import { noAnswer } from '../one-post';
import {
  msUntilReset,
  rateLimitReport,
  UNPACED,
  type RateLimitObserver,
} from '../rate-limit-report';
import { xSettings } from './x-settings';

export const X_TIMEOUT_MS = 15_000;

/** The token endpoint's answer (RFC 6749 §5.1); X rotates `refresh_token` at every renewal. */
export interface XToken {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

export interface XUser {
  id: string;
  name: string;
  username: string;
}

export interface XPost {
  id: string;
  text: string;
  entities?: { urls?: { url: string; expandedUrl?: string }[] };
}

export type XCall =
  'token' | 'users_me' | 'media_upload' | 'media_metadata' | 'create_post' | 'user_posts';

/** X said no. `reason` is X's own words; `retryAfterMs` on a 429 (from x-rate-limit-reset). */
export class XApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly oauthError: string | null = null,
    readonly retryAfterMs: number | null = null,
  ) {
    super(`X ${status}: ${reason}`);
  }

  get duplicate(): boolean {
    return this.status === 403 && /duplicate/i.test(this.reason);
  }
}

/** No answer: `sent` false when the request never left (refused, unresolved). Never names a token. */
export class XTransportError extends Error {
  constructor(
    message: string,
    readonly sent: boolean,
  ) {
    super(message);
  }
}

const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;

/** X's official client, but the token endpoint by hand: the client's posts only to api.x.com. */
@Injectable()
export class XApi {
  constructor(
    @InjectConfig() private readonly config: AppConfig,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  /** `POST /2/oauth2/token` with the app's client in HTTP Basic authentication. */
  token(grant: Record<string, string>, signal: AbortSignal): Promise<XToken> {
    return this.measured('token', async () => {
      const { apiUrl, client } = xSettings(this.config);
      if (!client) throw new XApiError(400, 'Herald has no X app configured', 'invalid_client');
      const basic = Buffer.from(
        `${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`,
      ).toString('base64');
      let response;
      try {
        response = await request(`${apiUrl}/2/oauth2/token`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${basic}`,
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'application/json',
          },
          body: new URLSearchParams(grant).toString(),
          signal,
        });
      } catch (error) {
        throw transportError('token', error);
      }
      let body: unknown;
      try {
        body = await response.body.json();
      } catch (error) {
        response.body.destroy();
        if (response.statusCode < 300) throw transportError('token', error);
      }
      if (response.statusCode >= 200 && response.statusCode < 300) return body as XToken;
      throw apiError(response.statusCode, body, (name) => header(response.headers[name]));
    });
  }

  me(accessToken: string): Promise<XUser> {
    return this.measured('users_me', async () => {
      const answer = await this.client(accessToken).users.getMe({
        userFields: ['username', 'name'],
      });
      return answer.data as XUser;
    });
  }

  uploadImage(accessToken: string, bytes: Buffer, timeoutMs: number): Promise<string> {
    return this.measured('media_upload', async () => {
      const answer = await this.client(accessToken, timeoutMs).media.upload({
        media: bytes.toString('base64'),
        mediaCategory: 'tweet_image',
      });
      const id = answer.data?.id;
      if (typeof id !== 'string' || id === '')
        throw new XTransportError('X media_upload answered without a media id', true);
      return id;
    });
  }

  describeImage(accessToken: string, mediaId: string, alt: string, timeoutMs: number) {
    return this.measured('media_metadata', () =>
      this.client(accessToken, timeoutMs).media.createMetadata({
        id: mediaId,
        metadata: { altText: { text: alt } },
      }),
    );
  }

  /** The answer's `x-rate-limit-*` report the user's posts window to `observe`. */
  createPost(
    accessToken: string,
    post: { text: string; mediaIds: string[]; replyTo: string | null },
    timeoutMs: number,
    observe: RateLimitObserver = UNPACED,
  ): Promise<string> {
    return this.measured('create_post', async () => {
      let response: Response;
      try {
        // The client's own `posts.create` answers only the body; its raw request keeps the headers.
        response = await this.client(accessToken, timeoutMs).request<Response>(
          'POST',
          '/2/tweets',
          {
            body: JSON.stringify({
              text: post.text,
              ...(post.mediaIds.length > 0 ? { media: { media_ids: post.mediaIds } } : {}),
              ...(post.replyTo ? { reply: { in_reply_to_tweet_id: post.replyTo } } : {}),
            }),
            security: [{ OAuth2UserToken: ['tweet.read', 'tweet.write', 'users.read'] }],
            raw: true,
          },
        );
      } catch (error) {
        if (error instanceof ApiError && error.status >= 100) observePosts(error.headers, observe);
        throw error;
      }
      observePosts(response.headers, observe);
      let answer: { data?: { id?: unknown } };
      try {
        answer = (await response.json()) as typeof answer;
      } catch {
        throw new XTransportError('X create_post answered an unreadable success', true);
      }
      const id = answer.data?.id;
      if (typeof id !== 'string' || id === '')
        throw new XTransportError('X create_post answered without a post id', true);
      return id;
    });
  }

  recentPosts(accessToken: string, userId: string, count: number) {
    return this.measured('user_posts', async () => {
      const answer = await this.client(accessToken).users.getPosts(userId, {
        maxResults: count,
        tweetFields: ['entities'],
      });
      return (answer.data ?? []) as XPost[];
    });
  }

  private client(accessToken: string, timeoutMs = X_TIMEOUT_MS): Client {
    return new Client({
      baseUrl: xSettings(this.config).apiUrl,
      accessToken,
      retry: false,
      timeout: timeoutMs,
    });
  }

  private async measured<T>(name: XCall, call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let outcome: PlatformCallOutcome = 'ok';
    try {
      return await call();
    } catch (error) {
      const failure = error instanceof ApiError ? fromClient(name, error) : error;
      outcome = failure instanceof XApiError ? 'api_error' : 'transport_error';
      throw failure instanceof XApiError || failure instanceof XTransportError
        ? failure
        : transportError(name, failure);
    } finally {
      this.metrics?.platformCall('x', name, outcome, (performance.now() - started) / 1000);
    }
  }
}

/** The client's error: an answer of X (status ≥ 100), else the request's own failure. */
function fromClient(name: XCall, error: ApiError): XApiError | XTransportError {
  if (error.status < 100) return transportError(name, error.data ?? error);
  return apiError(error.status, error.data, (h) => error.headers?.get(h) ?? null);
}

/** Both of X's shapes: `{title, detail}` (problem details) and `{errors: [{code, message}]}`. */
function apiError(
  status: number,
  body: unknown,
  headerOf: (name: string) => string | null,
): XApiError {
  const b = (typeof body === 'object' && body !== null ? body : {}) as {
    title?: unknown;
    detail?: unknown;
    error?: unknown;
    error_description?: unknown;
    errors?: { message?: unknown; detail?: unknown; code?: unknown }[];
  };
  const first = Array.isArray(b.errors) ? b.errors[0] : undefined;
  const words = [
    b.detail,
    b.error_description,
    first?.message,
    first?.detail,
    b.title,
    b.error,
  ].find((w): w is string => typeof w === 'string' && w !== '');
  const oauthError = typeof b.error === 'string' ? b.error : null;
  const wait = status === 429 ? rateLimitWaitMs(headerOf) : null;
  return new XApiError(status, words ?? `HTTP ${status}`, oauthError, wait);
}

function observePosts(headers: Headers, observe: RateLimitObserver): void {
  const report = rateLimitReport(
    'account',
    headers.get('x-rate-limit-remaining'),
    msUntilReset(headers.get('x-rate-limit-reset'), headers.get('date')),
  );
  if (report) observe(report);
}

/** Until x-rate-limit-reset (epoch seconds), from the answer's Date when it has one; ≥ 1 s. */
export function rateLimitWaitMs(headerOf: (name: string) => string | null, now = Date.now()) {
  const reset = Number(headerOf('x-rate-limit-reset'));
  if (!Number.isFinite(reset) || reset <= 0) return DEFAULT_RATE_LIMIT_WAIT_MS;
  const answered = Date.parse(headerOf('date') ?? '');
  const from = Number.isNaN(answered) ? now : answered;
  return Math.max(1_000, Math.ceil(reset * 1000 - from));
}

function transportError(name: XCall, error: unknown): XTransportError {
  const { message, sent } = noAnswer('X', name, error);
  return new XTransportError(message, sent);
}

function header(value: string | string[] | undefined): string | null {
  return typeof value === 'string' ? value : Array.isArray(value) ? (value[0] ?? null) : null;
}

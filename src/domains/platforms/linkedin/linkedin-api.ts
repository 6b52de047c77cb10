import { Injectable, Optional } from '@nestjs/common';
import { Dispatcher, request } from 'undici';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { Metrics, type PlatformCallOutcome } from '../../../infrastructure/metrics/metrics.service';
import { noAnswer } from '../one-post';
import { linkedInSettings } from './linkedin-settings';

export const LINKEDIN_TIMEOUT_MS = 15_000;

/** The token endpoint's answer; a refresh token only where the app may renew. */
export interface LinkedInToken {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  refresh_token_expires_in?: number;
  scope?: string;
}

export interface LinkedInMember {
  sub: string;
  name?: string;
}

export interface LinkedInOrganization {
  id: number;
  localizedName?: string;
  vanityName?: string;
}

export interface LinkedInPost {
  id: string;
  commentary?: string;
}

export type LinkedInCall =
  | 'token'
  | 'userinfo'
  | 'organization_acls'
  | 'organization'
  | 'initialize_upload'
  | 'upload_image'
  | 'create_post'
  | 'author_posts'
  | 'comment'
  | 'comments';

/** LinkedIn said no: `{message, serviceErrorCode}`, or an OAuth `{error, error_description}`. */
export class LinkedInApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly oauthError: string | null = null,
    readonly retryAfterMs: number | null = null,
  ) {
    super(`LinkedIn ${status}: ${reason}`);
  }

  /** The post LinkedIn says this one duplicates ("Content is a duplicate of urn:li:share:…"). */
  get duplicateOf(): string | null {
    if (this.status !== 422) return null;
    return /urn:li:(?:share|ugcPost):\d+/.exec(this.reason)?.[0] ?? '';
  }
}

/** No answer: `sent` false when the request never left. Never names a token. */
export class LinkedInTransportError extends Error {
  constructor(
    message: string,
    readonly sent: boolean,
  ) {
    super(message);
  }
}

const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;

interface Call {
  name: LinkedInCall;
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  token?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * By hand over undici: LinkedIn's own client (`linkedin-api-client`) fixes its addresses, and
 * Herald's LINKEDIN_API_URL and LINKEDIN_OAUTH_URL must hold. One request, one answer.
 */
@Injectable()
export class LinkedInApi {
  constructor(
    @InjectConfig() private readonly config: AppConfig,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  /** `POST {LINKEDIN_OAUTH_URL}/accessToken`, the app's client in the form. */
  async token(grant: Record<string, string>, signal?: AbortSignal): Promise<LinkedInToken> {
    const { oauthUrl, client } = linkedInSettings(this.config);
    if (!client) throw new LinkedInApiError(400, 'Herald has no LinkedIn app', 'invalid_client');
    const form = new URLSearchParams({
      ...grant,
      client_id: client.id,
      client_secret: client.secret,
    });
    const answer = await this.call<LinkedInToken>(
      {
        name: 'token',
        method: 'POST',
        url: `${oauthUrl}/accessToken`,
        body: form.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      },
      signal,
    );
    return answer.body;
  }

  async member(token: string): Promise<LinkedInMember> {
    const url = `${this.api()}/v2/userinfo`;
    return (await this.call<LinkedInMember>({ name: 'userinfo', method: 'GET', url, token })).body;
  }

  /** The organizations the member administers, as URNs. */
  async administered(token: string): Promise<string[]> {
    const url = `${this.api()}/rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED`;
    const answer = await this.call<{ elements?: { organization?: string }[] }>(
      this.rest({ name: 'organization_acls', method: 'GET', url, token }),
    );
    return (answer.body.elements ?? []).flatMap((e) => (e.organization ? [e.organization] : []));
  }

  async organization(token: string, id: string): Promise<LinkedInOrganization> {
    const url = `${this.api()}/rest/organizations/${encodeURIComponent(id)}`;
    return (
      await this.call<LinkedInOrganization>(
        this.rest({ name: 'organization', method: 'GET', url, token }),
      )
    ).body;
  }

  /** An image to upload for `owner`: its URN and where its bytes go. */
  async initializeUpload(token: string, owner: string, timeoutMs: number) {
    const url = `${this.api()}/rest/images?action=initializeUpload`;
    const answer = await this.call<{ value?: { uploadUrl?: string; image?: string } }>(
      this.rest({
        name: 'initialize_upload',
        method: 'POST',
        url,
        token,
        body: JSON.stringify({ initializeUploadRequest: { owner } }),
        headers: { 'content-type': 'application/json' },
        timeoutMs,
      }),
    );
    const { uploadUrl, image } = answer.body.value ?? {};
    if (typeof uploadUrl !== 'string' || typeof image !== 'string')
      throw new LinkedInApiError(answer.status, 'LinkedIn gave no upload address for the image');
    return { uploadUrl, image };
  }

  async upload(token: string, uploadUrl: string, bytes: Buffer, timeoutMs: number): Promise<void> {
    await this.call({
      name: 'upload_image',
      method: 'PUT',
      url: uploadUrl,
      token,
      body: bytes,
      timeoutMs,
    });
  }

  /** `POST /rest/posts`: the new post's URN, from `x-restli-id`. */
  async createPost(token: string, post: object, timeoutMs: number): Promise<string> {
    const url = `${this.api()}/rest/posts`;
    const answer = await this.call(
      this.rest({
        name: 'create_post',
        method: 'POST',
        url,
        token,
        body: JSON.stringify(post),
        headers: { 'content-type': 'application/json' },
        timeoutMs,
      }),
    );
    const urn = answer.headers['x-restli-id'];
    if (typeof urn !== 'string' || urn === '')
      throw new LinkedInTransportError('LinkedIn made the post without naming it', true);
    return urn;
  }

  /** A first comment on `post` by `actor`: the comment's URN. */
  async comment(token: string, post: string, actor: string, text: string, timeoutMs: number) {
    const url = `${this.api()}/rest/socialActions/${encodeURIComponent(post)}/comments`;
    const answer = await this.call<{ $URN?: string }>(
      this.rest({
        name: 'comment',
        method: 'POST',
        url,
        token,
        body: JSON.stringify({ actor, object: post, message: { text } }),
        headers: { 'content-type': 'application/json' },
        timeoutMs,
      }),
    );
    const urn = answer.headers['x-restli-id'] ?? answer.body.$URN;
    if (typeof urn !== 'string' || urn === '')
      throw new LinkedInTransportError('LinkedIn made the comment without naming it', true);
    return urn;
  }

  /** The comments on `post`; reading them needs the same rare scope as reading posts. */
  async comments(
    token: string,
    post: string,
  ): Promise<{ $URN?: string; actor?: string; message?: { text?: string } }[]> {
    const url = `${this.api()}/rest/socialActions/${encodeURIComponent(post)}/comments`;
    const answer = await this.call<{
      elements?: { $URN?: string; actor?: string; message?: { text?: string } }[];
    }>(this.rest({ name: 'comments', method: 'GET', url, token }));
    return answer.body.elements ?? [];
  }

  /** The author's newest posts; needs a scope most apps are not granted. */
  async postsBy(token: string, author: string, count: number): Promise<LinkedInPost[]> {
    const url = `${this.api()}/rest/posts?q=author&author=${encodeURIComponent(author)}&count=${count}`;
    const answer = await this.call<{ elements?: LinkedInPost[] }>(
      this.rest({ name: 'author_posts', method: 'GET', url, token }),
    );
    return answer.body.elements ?? [];
  }

  private api(): string {
    return linkedInSettings(this.config).apiUrl;
  }

  /** Every `/rest` call states its version and the Rest.li protocol. */
  private rest(call: Call): Call {
    return {
      ...call,
      headers: {
        ...call.headers,
        'linkedin-version': linkedInSettings(this.config).version,
        'x-restli-protocol-version': '2.0.0',
      },
    };
  }

  private async call<T = unknown>(call: Call, signal?: AbortSignal) {
    const started = performance.now();
    let outcome: PlatformCallOutcome = 'ok';
    // A plain timer, cleared when the call ends (docs/performance.md#plain-timers).
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new DOMException('The call timed out', 'TimeoutError')),
      call.timeoutMs ?? LINKEDIN_TIMEOUT_MS,
    );
    try {
      return await this.send<T>(
        call,
        signal ? AbortSignal.any([signal, abort.signal]) : abort.signal,
      );
    } catch (error) {
      outcome = error instanceof LinkedInApiError ? 'api_error' : 'transport_error';
      throw error;
    } finally {
      clearTimeout(timer);
      this.metrics?.platformCall(
        'linkedin',
        call.name,
        outcome,
        (performance.now() - started) / 1000,
      );
    }
  }

  private async send<T>(call: Call, signal: AbortSignal) {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(call.url, {
        method: call.method,
        body: call.body,
        headers: {
          accept: 'application/json',
          ...(call.token ? { authorization: `Bearer ${call.token}` } : {}),
          ...call.headers,
        },
        signal,
      });
    } catch (error) {
      throw transportError(call.name, error);
    }
    let body: unknown;
    try {
      const text = await response.body.text();
      body = text === '' ? {} : JSON.parse(text);
    } catch (error) {
      if (response.statusCode < 300) throw transportError(call.name, error);
      body = {};
    }
    if (response.statusCode >= 200 && response.statusCode < 300)
      return { status: response.statusCode, headers: response.headers, body: body as T };
    throw apiError(response.statusCode, body, response.headers);
  }
}

function apiError(status: number, body: unknown, headers: Dispatcher.ResponseData['headers']) {
  const b = (typeof body === 'object' && body !== null ? body : {}) as {
    message?: unknown;
    error?: unknown;
    error_description?: unknown;
  };
  const words = [b.message, b.error_description, b.error].find(
    (w): w is string => typeof w === 'string' && w !== '',
  );
  const seconds = Number(headers['retry-after']);
  const wait =
    status !== 429
      ? null
      : Number.isFinite(seconds) && seconds > 0
        ? seconds * 1000
        : DEFAULT_RATE_LIMIT_WAIT_MS;
  return new LinkedInApiError(
    status,
    words ?? `HTTP ${status}`,
    typeof b.error === 'string' ? b.error : null,
    wait,
  );
}

function transportError(name: LinkedInCall, error: unknown): LinkedInTransportError {
  const { message, sent } = noAnswer('LinkedIn', name, error);
  return new LinkedInTransportError(message, sent);
}

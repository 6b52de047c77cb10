import { randomUUID } from 'node:crypto';
import { withDates } from './dates';
import { HeraldError, HeraldErrorDetail } from './errors';
import type * as api from './generated/api';

export type Project = api.PublicProjectDto;
export type Channel = api.ChannelListItemDto;
export type MediaAsset = api.MediaAssetDto;
export type ConnectionStarted = api.ConnectionStartedDto;
export type CreatePost = api.CreatePostDto;
export type CreatedPost = api.PostCreatedDto;
export type UpdatePost = api.UpdatePostDto;
/** One further message of a post's `thread`, published as a reply to the one before. */
export type ThreadItem = api.ThreadItemDto;
export type Post = api.PostObjectDto;
export type PostListItem = api.PostListItemDto;
export type PostStatus = api.PostObjectDto['status'];
export type PostValidation = api.PostValidationDto;
export type PublishResult = api.PublishResultDto;
export type Usage = api.UsageDto;
export type CreateWebhook = api.CreateWebhookDto;
export type CreatedWebhook = api.WebhookCreatedDto;
export type Webhook = api.WebhookDto;
export type WebhookDelivery = api.WebhookDeliveryDto;
export type WebhookTest = api.WebhookTestDto;
export type { api };

export interface HeraldOptions {
  /** `hrld_live_…` or `hrld_test_…`. */
  apiKey: string;
  /** The service's origin, such as `http://localhost:3000`. */
  baseUrl: string;
  /** Attempts after the first for an answer worth retrying; default 3. */
  retries?: number;
  /** The first backoff after a network error or a 5xx, doubled at each retry; default 500 ms. */
  backoffMs?: number;
  /** Longest wait for one answer; default 30 s. */
  timeoutMs?: number;
  /** Another `fetch` (a proxy's, a test's); default the global one. */
  fetch?: typeof fetch;
}

export interface IdempotencyOption {
  /** Sent as Idempotency-Key; one is made when none is given, so a retry never acts twice. */
  idempotencyKey?: string;
}

export interface PageOptions {
  /** Items asked for per request (1–100); default 20. */
  pageSize?: number;
}

interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  form?: () => FormData;
  /** Safe to send again: every method but POST, a POST with an Idempotency-Key, a dry run. */
  idempotencyKey?: string;
  retrySafe?: boolean;
}

/** Statuses that say "not now": retried after Retry-After (or the backoff when it is absent). */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/**
 * A client for Herald's public API (`/api/public/v1`). Answers come back with their date-times
 * as `Date`s read as UTC; every failure is a `HeraldError`. A call that may be sent again safely
 * is retried a few times: after `Retry-After` on 429 and 503, with a doubling backoff after a
 * network error or another 5xx. A POST is retried only under an Idempotency-Key, which the client
 * makes itself when the caller gives none, so a retried create never makes a second post.
 */
export class Herald {
  readonly projects = {
    list: async (): Promise<Project[]> =>
      (await this.call<api.PublicProjectListDto>({ method: 'GET', path: '/projects' })).items,
  };

  readonly channels = {
    list: async (projectId: number): Promise<Channel[]> =>
      (
        await this.call<api.ChannelListDto>({
          method: 'GET',
          path: `/projects/${id(projectId)}/channels`,
        })
      ).items,
  };

  readonly media = {
    /** Uploads one file, with its alt text if given; Herald reads its type from the bytes. */
    upload: async (
      projectId: number,
      file: { data: Buffer | Uint8Array | Blob; filename: string; alt_text?: string },
      options: IdempotencyOption = {},
    ): Promise<MediaAsset> => {
      const blob = file.data instanceof Blob ? file.data : new Blob([new Uint8Array(file.data)]);
      const answer = await this.call<api.MediaAssetListDto>({
        method: 'POST',
        path: `/projects/${id(projectId)}/media`,
        form: () => {
          const form = new FormData();
          if (file.alt_text !== undefined) form.append('alt_text', file.alt_text);
          form.append('files', blob, file.filename);
          return form;
        },
        idempotencyKey: options.idempotencyKey ?? randomUUID(),
      });
      return answer.items[0];
    },
    /** Herald downloads the file from a public link. */
    fromUrl: async (
      projectId: number,
      body: api.UploadByUrlDto,
      options: IdempotencyOption = {},
    ): Promise<MediaAsset> => {
      const answer = await this.call<api.MediaAssetListDto>({
        method: 'POST',
        path: `/projects/${id(projectId)}/media`,
        json: body,
        idempotencyKey: options.idempotencyKey ?? randomUUID(),
      });
      return answer.items[0];
    },
    /** Sets a stored file's alt text; `alt_text: null` removes it. */
    update: (projectId: number, mediaId: number, body: api.UpdateMediaDto): Promise<MediaAsset> =>
      this.call({
        method: 'PATCH',
        path: `/projects/${id(projectId)}/media/${id(mediaId)}`,
        json: body,
      }),
  };

  readonly connections = {
    /**
     * Starts connecting an account through OAuth: hand `authorize_url` to the person whose
     * account it is (single use, 10 minutes). Needs a live key with `accounts:write`.
     */
    start: (projectId: number, body: api.StartConnectionDto): Promise<ConnectionStarted> =>
      this.call({
        method: 'POST',
        path: `/projects/${id(projectId)}/connections`,
        json: body,
        // A start sent twice only hands out a second link; the first one expires unused.
        retrySafe: true,
      }),
  };

  readonly posts = {
    create: (
      projectId: number,
      body: CreatePost,
      options: IdempotencyOption = {},
    ): Promise<CreatedPost> =>
      this.call({
        method: 'POST',
        path: `/projects/${id(projectId)}/posts`,
        json: body,
        idempotencyKey: options.idempotencyKey ?? randomUUID(),
      }),
    /** The dry run of a create: every problem at once, nothing stored. */
    validate: (projectId: number, body: CreatePost): Promise<PostValidation> =>
      this.call({
        method: 'POST',
        path: `/projects/${id(projectId)}/posts/validate`,
        json: body,
        retrySafe: true,
      }),
    get: (projectId: number, postId: number): Promise<Post> =>
      this.call({ method: 'GET', path: `/projects/${id(projectId)}/posts/${id(postId)}` }),
    update: (projectId: number, postId: number, patch: UpdatePost): Promise<Post> =>
      this.call({
        method: 'PATCH',
        path: `/projects/${id(projectId)}/posts/${id(postId)}`,
        json: patch,
      }),
    delete: async (projectId: number, postId: number): Promise<void> => {
      await this.call({ method: 'DELETE', path: `/projects/${id(projectId)}/posts/${id(postId)}` });
    },
    /** Publishes a draft, a scheduled post early or a failed one again; `targets` replaces the post's. */
    publish: (
      projectId: number,
      postId: number,
      body: { targets?: api.PostTargetDto[] } = {},
      options: IdempotencyOption = {},
    ): Promise<PublishResult> =>
      this.call({
        method: 'POST',
        path: `/projects/${id(projectId)}/posts/${id(postId)}/publish`,
        json: body,
        idempotencyKey: options.idempotencyKey ?? randomUUID(),
      }),
    /** Every post, newest first, page after page (`next_cursor`), as it is iterated. */
    list: (
      projectId: number,
      options: PageOptions & { status?: PostStatus } = {},
    ): Pager<PostListItem> =>
      this.pager(`/projects/${id(projectId)}/posts`, {
        status: options.status,
        limit: options.pageSize,
      }),
  };

  readonly webhooks = {
    /** The answer carries the signing `secret`, shown only here. */
    create: (
      projectId: number,
      body: CreateWebhook,
      options: IdempotencyOption = {},
    ): Promise<CreatedWebhook> =>
      this.call({
        method: 'POST',
        path: `/projects/${id(projectId)}/webhooks`,
        json: body,
        idempotencyKey: options.idempotencyKey ?? randomUUID(),
      }),
    list: async (projectId: number): Promise<Webhook[]> =>
      (
        await this.call<api.WebhookListDto>({
          method: 'GET',
          path: `/projects/${id(projectId)}/webhooks`,
        })
      ).items,
    delete: async (projectId: number, webhookId: number): Promise<void> => {
      await this.call({
        method: 'DELETE',
        path: `/projects/${id(projectId)}/webhooks/${id(webhookId)}`,
      });
    },
    /** Every delivery attempt, newest first, page after page. */
    deliveries: (
      projectId: number,
      webhookId: number,
      options: PageOptions = {},
    ): Pager<WebhookDelivery> =>
      this.pager(`/projects/${id(projectId)}/webhooks/${id(webhookId)}/deliveries`, {
        limit: options.pageSize,
      }),
    /** Sends a `webhook.test` event to this endpoint. */
    test: (
      projectId: number,
      webhookId: number,
      options: IdempotencyOption = {},
    ): Promise<WebhookTest> =>
      this.call({
        method: 'POST',
        path: `/projects/${id(projectId)}/webhooks/${id(webhookId)}/test`,
        idempotencyKey: options.idempotencyKey ?? randomUUID(),
      }),
  };

  private readonly apiKey: string;
  private readonly root: string;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(options: HeraldOptions) {
    if (!options?.apiKey) throw new TypeError('Herald: apiKey is required');
    if (!options.baseUrl) throw new TypeError('Herald: baseUrl is required');
    this.apiKey = options.apiKey;
    this.root = `${new URL(options.baseUrl).origin}/api/public/v1`;
    this.retries = options.retries ?? 3;
    this.backoffMs = options.backoffMs ?? 500;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** The key user's counters. */
  usage(): Promise<Usage> {
    return this.call({ method: 'GET', path: '/usage' });
  }

  private pager<T>(path: string, query: Record<string, string | number | undefined>): Pager<T> {
    return new Pager<T>((cursor) =>
      this.call<{ items: T[]; next_cursor: string | null }>({
        method: 'GET',
        path,
        query: { ...query, cursor },
      }),
    );
  }

  private async call<T>(call: Call): Promise<T> {
    const url = new URL(this.root + call.path);
    for (const [name, value] of Object.entries(call.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      accept: 'application/json',
    };
    if (call.json !== undefined) headers['content-type'] = 'application/json';
    if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
    const mayRetry =
      call.method !== 'POST' || call.idempotencyKey !== undefined || call.retrySafe === true;

    for (let attempt = 0; ; attempt++) {
      let error: HeraldError;
      try {
        const response = await this.fetch(url, {
          method: call.method,
          headers,
          body: call.form
            ? call.form()
            : call.json === undefined
              ? undefined
              : JSON.stringify(call.json),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        if (response.ok) {
          const text = await response.text();
          return (text ? withDates<T>(JSON.parse(text)) : undefined) as T;
        }
        error = await errorOf(response);
      } catch (failure) {
        if (failure instanceof HeraldError) throw failure;
        const timedOut = (failure as Error).name === 'TimeoutError';
        error = new HeraldError(
          0,
          timedOut ? 'timeout' : 'network_error',
          timedOut ? `No answer within ${this.timeoutMs} ms` : messageOf(failure),
        );
      }
      const retryable =
        error.status === 0 || error.status >= 500 || RETRY_AFTER_STATUSES.has(error.status);
      if (!mayRetry || !retryable || attempt >= this.retries) throw error;
      const waitMs =
        RETRY_AFTER_STATUSES.has(error.status) && error.retryAfter !== null
          ? error.retryAfter * 1000
          : this.backoffMs * 2 ** attempt;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

/**
 * The items of a paged list, fetched a page at a time as they are iterated: each next page is
 * asked for with the previous page's `next_cursor`, until it is null. A cursor marks a place in
 * the list, so items created while iterating never make an item come twice or be skipped.
 */
export class Pager<T> implements AsyncIterable<T> {
  constructor(
    private readonly page: (cursor?: string) => Promise<{ items: T[]; next_cursor: string | null }>,
  ) {}

  /** The pages themselves, for a caller that works a page at a time. */
  async *pages(): AsyncGenerator<T[]> {
    let cursor: string | undefined;
    do {
      const answer = await this.page(cursor);
      yield answer.items;
      cursor = answer.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const items of this.pages()) yield* items;
  }

  /** Every item, in one array (reads to the end of the list). */
  async all(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}

function id(value: number): string {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new TypeError(`Herald: an id is a positive integer, not ${String(value)}`);
  return String(value);
}

async function errorOf(response: Response): Promise<HeraldError> {
  const retryAfter = retryAfterOf(response.headers.get('retry-after'));
  const text = await response.text().catch(() => '');
  let body: { error?: { code?: string; message?: string; details?: HeraldErrorDetail[] } } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // Not Herald's JSON (a proxy's page): the status says what happened.
  }
  return new HeraldError(
    response.status,
    body.error?.code ?? `http_${response.status}`,
    body.error?.message ?? (text.slice(0, 200) || response.statusText),
    body.error?.details ?? [],
    retryAfter,
  );
}

/** Retry-After in seconds or as an HTTP date; null when absent or unreadable. */
function retryAfterOf(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function messageOf(failure: unknown): string {
  const error = failure as Error & { cause?: Error };
  return error.cause?.message ?? error.message ?? String(failure);
}

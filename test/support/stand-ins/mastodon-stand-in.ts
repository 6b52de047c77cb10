import { MastodonOAuthServer } from './mastodon-oauth-server';
import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { readMultipart, type RecordedFile } from './multipart';
import { AddressInfo } from 'node:net';

/** The API calls the stand-in answers, by the name a script or a recorded call uses. */
export type MastodonRoute =
  | 'verify_credentials'
  | 'instance'
  | 'upload_media'
  | 'get_media'
  | 'post_status'
  | 'register_app'
  | 'authorize'
  | 'token';

/** The routes of the instance's OAuth side, served by its MastodonOAuthServer. */
const OAUTH_ROUTES = new Set<MastodonRoute>(['register_app', 'authorize', 'token']);

/** A file of a multipart request to the instance. */
export type RecordedMastodonFile = RecordedFile;

export interface RecordedMastodonCall {
  route: MastodonRoute | 'unknown';
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The JSON body, or the multipart text fields. */
  body: Record<string, unknown>;
  files: RecordedMastodonFile[];
  at: number;
  /** The HTTP status answered; null while unanswered (or never, for a hang or a drop). */
  status: number | null;
}

/** The instance's configuration as `GET /api/v2/instance` shows it; a field set to undefined is left out. */
export interface MastodonInstanceLimits {
  max_characters?: number;
  characters_reserved_per_url?: number;
  max_media_attachments?: number;
  image_size_limit?: number;
  video_size_limit?: number;
}

/** Mastodon's defaults (a stock instance). */
export const STOCK_LIMITS: Required<MastodonInstanceLimits> = {
  max_characters: 500,
  characters_reserved_per_url: 23,
  max_media_attachments: 4,
  image_size_limit: 16 * 1024 * 1024,
  video_size_limit: 99 * 1024 * 1024,
};

export interface MastodonScript {
  /** Only for calls of this account (its id); any account's when absent. */
  account?: string;
  /** Answer with this status and `{error}` instead of serving the call. */
  status?: number;
  error?: string;
  /** Extra answer headers (e.g. X-RateLimit-Reset with a 429). */
  headers?: Record<string, string>;
  /** Leave out the X-RateLimit-* headers every answer carries (a 429 without a hint). */
  bare?: boolean;
  /** Read the request and never answer. */
  hang?: boolean;
  /**
   * Serve the call (a status is made), then never answer, close the connection unanswered, answer
   * 200 with a body that is not JSON, or answer 200 with the status but no `id`.
   */
  afterServing?: 'hang' | 'drop' | 'malformed' | 'no_id';
  /** Close the connection once the request is read, before serving it (nothing is made). */
  beforeServing?: 'drop';
  /** Answer only after this many milliseconds. */
  delayMs?: number;
}

/** How an uploaded medium is processed: answered 200 at once, or 202 then `polls` 206s. */
export interface MediaProcessing {
  /** GET /api/v1/media/:id answers 206 this many times before 200 (0 with `async`: 200 at once). */
  polls: number;
  /** POST /api/v2/media answers 202 (processing in the background) rather than 200. */
  async: boolean;
  /** Processing fails: GET answers 422 as Mastodon does. */
  fails?: boolean;
}

interface Account {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  url: string;
}

interface Media {
  id: string;
  accountId: string;
  type: 'image' | 'video';
  pollsLeft: number;
  fails: boolean;
  statusId: string | null;
  description: string | null;
}

export interface MadeStatus {
  id: string;
  accountId: string;
  text: string;
  visibility: string;
  mediaIds: string[];
  idempotencyKey: string | null;
  url: string;
  /** The status it replies to (`in_reply_to_id`), else null. */
  inReplyToId: string | null;
}

/** A fixed window counted per key, aligned on the epoch as Mastodon's limits are. */
interface Window {
  limit: number;
  periodMs: number;
}

/** Mastodon's published limits: any API call per token, media uploads and statuses per account. */
export const MASTODON_RATE_LIMITS = {
  api: { limit: 300, periodMs: 5 * 60_000 },
  media: { limit: 30, periodMs: 30 * 60_000 },
  statuses: { limit: 300, periodMs: 3 * 3_600_000 },
};

/**
 * A local Mastodon instance speaking its REST API as a real one does: verify_credentials (Bearer),
 * the v2 instance with its configuration, v2 media uploads processed in the background and polled
 * with v1, and statuses that honour the Idempotency-Key header. Every answer carries the rate-limit
 * headers, 429 past the limits. Tests register accounts, set the instance's limits, script
 * answers, and read back every call it received.
 */
export class MastodonStandIn {
  readonly calls: RecordedMastodonCall[] = [];
  readonly statuses: MadeStatus[] = [];
  private readonly accounts = new Map<string, Account>();
  private readonly media = new Map<string, Media>();
  private readonly idempotency = new Map<string, string>();
  private readonly scripts = new Map<MastodonRoute, MastodonScript[]>();
  private readonly processing: MediaProcessing[] = [];
  private readonly counters = new Map<string, number>();
  private readonly open = new Set<ServerResponse>();
  private limits: MastodonInstanceLimits = { ...STOCK_LIMITS };
  private instanceFound = true;
  private rateLimits = { ...MASTODON_RATE_LIMITS };
  private latency = { ms: 0, jitterMs: 0 };
  private server?: Server;
  private nextId = 109_000_000_000_000_000n;

  /** The instance's OAuth side: apps, the consent page (the test plays the user), tokens. */
  readonly oauth = new MastodonOAuthServer((accountToken) => {
    const account = this.accounts.get(accountToken);
    if (!account) throw new Error('The consenting user has no account on this instance');
    const token = randomBytes(32).toString('base64url');
    this.accounts.set(token, account);
    return token;
  });

  get url(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  /** Registers an account; answers its access token and the account as the API shows it. */
  addAccount(
    username = `herald${this.accounts.size + 1}`,
    displayName = `Herald ${username}`,
  ): { token: string; account: Account } {
    const id = this.id();
    const account = {
      id,
      username,
      acct: username,
      display_name: displayName,
      url: `${this.url}/@${username}`,
    };
    const token = randomBytes(32).toString('base64url');
    this.accounts.set(token, account);
    return { token, account };
  }

  accountOf(token: string): Account {
    const account = this.accounts.get(token);
    if (!account) throw new Error('The stand-in issued no such token');
    return account;
  }

  /** Another access token of the account of `token` (a new application's, say); both work. */
  newToken(token: string): string {
    const another = randomBytes(32).toString('base64url');
    this.accounts.set(another, this.accountOf(token));
    return another;
  }

  /** Sets the instance's configuration; a field given as undefined is left out of the answer. */
  configure(limits: MastodonInstanceLimits): this {
    this.limits = { ...this.limits, ...limits };
    return this;
  }

  /** `GET /api/v2/instance` answers 404, as on a server without that route. */
  withoutInstanceRoute(): this {
    this.instanceFound = false;
    return this;
  }

  /** Changes a published limit (e.g. fewer statuses per window for a spec of 429). */
  rateLimit(family: keyof typeof MASTODON_RATE_LIMITS, window: Window): this {
    this.rateLimits = { ...this.rateLimits, [family]: window };
    return this;
  }

  /**
   * Answers leave `ms` after the call was served, plus or minus up to `jitterMs`; calls still
   * count against the limits when they arrive.
   */
  answerAfter(ms: number, jitterMs = 0): this {
    this.latency = { ms, jitterMs };
    return this;
  }

  /** The next calls of `route` get these answers, in order, before normal service resumes. */
  script(route: MastodonRoute, ...answers: MastodonScript[]): void {
    this.scripts.set(route, [...(this.scripts.get(route) ?? []), ...answers]);
  }

  /**
   * The next uploads are processed like this, in order; after them, images are ready at once
   * (200) and videos answer 202 and are ready after two 206 polls.
   */
  processMedia(...ways: MediaProcessing[]): void {
    this.processing.push(...ways);
  }

  callsOf(route: MastodonRoute, token?: string): RecordedMastodonCall[] {
    return this.calls.filter(
      (call) =>
        call.route === route &&
        (token === undefined || call.headers.authorization === `Bearer ${token}`),
    );
  }

  statusesOf(accountId: string): MadeStatus[] {
    return this.statuses.filter((status) => status.accountId === accountId);
  }

  /** The medium an upload made, as the stand-in keeps it. */
  mediaById(id: string): Media | undefined {
    return this.media.get(id);
  }

  /** The first script of the route meant for this caller, taken off the list. */
  private nextScript(route: MastodonRoute, account?: Account): MastodonScript | undefined {
    const list = this.scripts.get(route) ?? [];
    const index = list.findIndex((s) => s.account === undefined || s.account === account?.id);
    return index === -1 ? undefined : list.splice(index, 1)[0];
  }

  private id(): string {
    this.nextId += BigInt(1 + Math.floor(Math.random() * 1000));
    return this.nextId.toString();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    const route = routeOf(req.method ?? '', path);
    const { body, files } = await readBody(req);
    const call: RecordedMastodonCall = {
      route: route ?? 'unknown',
      method: req.method ?? '',
      path,
      headers: req.headers,
      body,
      files,
      at: Date.now(),
      status: null,
    };
    this.calls.push(call);
    this.open.add(res);
    res.once('close', () => this.open.delete(res));
    if (!route) return this.reply(res, call, 404, { error: 'Record not found' });

    const scripted = this.nextScript(route, this.authenticated(call));
    if (scripted?.hang) return;
    if (scripted?.beforeServing === 'drop') {
      res.socket?.destroy();
      return;
    }
    if (scripted?.delayMs) await new Promise((resolve) => setTimeout(resolve, scripted.delayMs));
    if (scripted?.status !== undefined) {
      return this.reply(
        res,
        call,
        scripted.status,
        { error: scripted.error ?? `Error ${scripted.status}` },
        scripted.headers,
        scripted.bare,
      );
    }
    if (OAUTH_ROUTES.has(route)) return this.serveOAuth(route, call, req, res);
    const served = this.serve(route, call, path);
    if (scripted?.afterServing === 'hang') return;
    if (scripted?.afterServing === 'drop') {
      res.socket?.destroy();
      return;
    }
    if (scripted?.afterServing === 'malformed') {
      call.status = 200;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end('{"id": "1', 'utf8');
      return;
    }
    if (scripted?.afterServing === 'no_id' && served.body && typeof served.body === 'object') {
      const { id: _id, ...rest } = served.body as Record<string, unknown>;
      return this.reply(res, call, served.status, rest, served.headers);
    }
    this.reply(res, call, served.status, served.body, served.headers);
  }

  private serveOAuth(
    route: MastodonRoute,
    call: RecordedMastodonCall,
    req: IncomingMessage,
    res: ServerResponse,
  ): void {
    const query = new URL(req.url ?? '/', this.url).searchParams;
    const answer =
      route === 'register_app'
        ? this.oauth.registerApp(call.body)
        : route === 'authorize'
          ? this.oauth.authorize(query)
          : this.oauth.token(call.body, req.headers.authorization);
    call.status = answer.status;
    if (answer.location) {
      res.writeHead(302, { location: answer.location }).end();
      return;
    }
    if (answer.html !== undefined) {
      res.writeHead(answer.status, { 'content-type': 'text/html; charset=utf-8' }).end(answer.html);
      return;
    }
    this.reply(res, call, answer.status, answer.body);
  }

  private serve(
    route: MastodonRoute,
    call: RecordedMastodonCall,
    path: string,
  ): { status: number; body: unknown; headers?: Record<string, string> } {
    if (route === 'instance') {
      if (!this.instanceFound) return { status: 404, body: { error: 'Record not found' } };
      return { status: 200, body: this.instance() };
    }
    const account = this.authenticated(call);
    if (!account) return { status: 401, body: { error: 'The access token is invalid' } };
    const api = this.count(`api:${String(call.headers.authorization)}`, this.rateLimits.api);
    if (api.over)
      return { status: 429, body: { error: 'Too many requests' }, headers: api.headers };
    const served = this.serveAccount(route, account, call, path);
    return { ...served, headers: { ...api.headers, ...served.headers } };
  }

  private serveAccount(
    route: MastodonRoute,
    account: Account,
    call: RecordedMastodonCall,
    path: string,
  ): { status: number; body: unknown; headers?: Record<string, string> } {
    switch (route) {
      case 'verify_credentials':
        return { status: 200, body: { ...account, note: '', locked: false, bot: false } };
      case 'upload_media': {
        const media = this.count(`media:${account.id}`, this.rateLimits.media);
        if (media.over)
          return { status: 429, body: { error: 'Too many requests' }, headers: media.headers };
        return { ...this.upload(account, call), headers: media.headers };
      }
      case 'get_media':
        return this.poll(account, path.split('/').pop() ?? '');
      case 'post_status':
        return this.postStatus(account, call);
    }
    return { status: 404, body: { error: 'Record not found' } };
  }

  private instance(): unknown {
    const l = this.limits;
    return {
      domain: new URL(this.url).host,
      title: 'Herald stand-in',
      version: '4.3.0',
      configuration: {
        statuses: {
          max_characters: l.max_characters,
          max_media_attachments: l.max_media_attachments,
          characters_reserved_per_url: l.characters_reserved_per_url,
        },
        media_attachments: {
          supported_mime_types: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'video/mp4'],
          image_size_limit: l.image_size_limit,
          video_size_limit: l.video_size_limit,
          description_limit: 1500,
        },
      },
    };
  }

  private authenticated(call: RecordedMastodonCall): Account | undefined {
    const match = /^Bearer (.+)$/.exec(String(call.headers.authorization ?? ''));
    return match ? this.accounts.get(match[1]) : undefined;
  }

  private upload(account: Account, call: RecordedMastodonCall): { status: number; body: unknown } {
    const file = call.files.find((f) => f.field === 'file');
    if (!file) return { status: 422, body: { error: 'Validation failed: File must be present' } };
    const type = file.mimeType.startsWith('video/') ? 'video' : 'image';
    const limit = type === 'video' ? this.limits.video_size_limit : this.limits.image_size_limit;
    const max = limit ?? STOCK_LIMITS[type === 'video' ? 'video_size_limit' : 'image_size_limit'];
    if (file.bytes.length > max) {
      return {
        status: 422,
        body: { error: `Validation failed: File file size must be less than ${max} Bytes` },
      };
    }
    const way =
      this.processing.shift() ??
      (type === 'video' ? { polls: 2, async: true } : { polls: 0, async: false });
    const medium: Media = {
      id: this.id(),
      accountId: account.id,
      type,
      pollsLeft: way.async ? way.polls : 0,
      fails: way.fails ?? false,
      statusId: null,
      description: typeof call.body.description === 'string' ? call.body.description : null,
    };
    this.media.set(medium.id, medium);
    return { status: way.async ? 202 : 200, body: this.attachment(medium, !way.async) };
  }

  private poll(account: Account, id: string): { status: number; body: unknown } {
    const medium = this.media.get(id);
    if (!medium || medium.accountId !== account.id || medium.statusId !== null)
      return { status: 404, body: { error: 'Record not found' } };
    if (medium.fails)
      return { status: 422, body: { error: 'Error processing thumbnail for uploaded media' } };
    if (medium.pollsLeft > 0) {
      medium.pollsLeft--;
      return { status: 206, body: this.attachment(medium, false) };
    }
    return { status: 200, body: this.attachment(medium, true) };
  }

  private attachment(medium: Media, ready: boolean): unknown {
    const file = `${this.url}/system/media_attachments/files/${medium.id}/original`;
    return {
      id: medium.id,
      type: medium.type,
      url: ready ? file : null,
      preview_url: `${file}.preview.png`,
      description: medium.description,
    };
  }

  private postStatus(
    account: Account,
    call: RecordedMastodonCall,
  ): { status: number; body: unknown; headers?: Record<string, string> } {
    const replyTo = call.body.in_reply_to_id;
    const inReplyToId = replyTo === undefined || replyTo === null ? null : String(replyTo);
    // Mastodon looks the parent up before anything else and answers 404 when it cannot see it.
    if (inReplyToId !== null && !this.statuses.some((s) => s.id === inReplyToId))
      return {
        status: 404,
        body: { error: 'The status you are trying to reply to does not appear to exist.' },
      };
    const key = call.headers['idempotency-key'];
    const keyed = typeof key === 'string' && key !== '' ? `${account.id}:${key}` : null;
    const earlier = keyed ? this.idempotency.get(keyed) : undefined;
    const existing = earlier && this.statuses.find((s) => s.id === earlier);
    if (existing) return { status: 200, body: this.statusBody(existing, account) };

    const rate = this.peek(`statuses:${account.id}`, this.rateLimits.statuses);
    if (rate.over)
      return { status: 429, body: { error: 'Too many requests' }, headers: rate.headers };
    const text = typeof call.body.status === 'string' ? call.body.status : '';
    const mediaIds = Array.isArray(call.body.media_ids) ? call.body.media_ids.map(String) : [];
    const refusal = this.validate(account, text, mediaIds);
    if (refusal) return { status: 422, body: { error: refusal }, headers: rate.headers };
    const counted = this.count(`statuses:${account.id}`, this.rateLimits.statuses);
    const status: MadeStatus = {
      id: this.id(),
      accountId: account.id,
      text,
      visibility: String(call.body.visibility ?? 'public'),
      mediaIds,
      idempotencyKey: typeof key === 'string' ? key : null,
      url: '',
      inReplyToId,
    };
    status.url = `${account.url}/${status.id}`;
    for (const id of mediaIds) this.media.get(id)!.statusId = status.id;
    this.statuses.push(status);
    if (keyed) this.idempotency.set(keyed, status.id);
    return { status: 200, body: this.statusBody(status, account), headers: counted.headers };
  }

  /** Mastodon's own checks of a new status, with its messages. */
  private validate(account: Account, text: string, mediaIds: string[]): string | null {
    if (text.trim() === '' && mediaIds.length === 0)
      return "Validation failed: Text can't be blank";
    const max = this.limits.max_characters ?? STOCK_LIMITS.max_characters;
    if (countLikeMastodon(text, this.limits.characters_reserved_per_url ?? 23) > max)
      return `Validation failed: Text character limit of ${max} exceeded`;
    const mediaMax = this.limits.max_media_attachments ?? STOCK_LIMITS.max_media_attachments;
    if (mediaIds.length > mediaMax) return `Cannot attach more than ${mediaMax} files`;
    const media = mediaIds.map((id) => this.media.get(id));
    if (media.some((m) => !m || m.accountId !== account.id || m.statusId !== null))
      return 'Validation failed: Media attachments are invalid';
    if (media.some((m) => m!.pollsLeft > 0 || m!.fails))
      return 'Cannot attach files that have not finished processing. Try again in a moment!';
    if (media.length > 1 && media.some((m) => m!.type === 'video'))
      return 'Cannot attach a video to a post that already contains images';
    return null;
  }

  private statusBody(status: MadeStatus, account: Account): unknown {
    return {
      id: status.id,
      created_at: new Date().toISOString(),
      visibility: status.visibility,
      uri: `${this.url}/users/${account.username}/statuses/${status.id}`,
      url: status.url,
      in_reply_to_id: status.inReplyToId,
      content: `<p>${status.text}</p>`,
      media_attachments: status.mediaIds.map((id) => this.attachment(this.media.get(id)!, true)),
      account,
    };
  }

  /** Counts one call in the key's current window: whether it is one too many, and the headers. */
  private count(key: string, window: Window): { over: boolean; headers: Record<string, string> } {
    const seen = this.peek(key, window);
    if (seen.over) return seen;
    const slot = `${key}:${Math.floor(Date.now() / window.periodMs)}`;
    const used = (this.counters.get(slot) ?? 0) + 1;
    this.counters.set(slot, used);
    return { over: false, headers: rateHeaders(window, used) };
  }

  private peek(key: string, window: Window): { over: boolean; headers: Record<string, string> } {
    const used = this.counters.get(`${key}:${Math.floor(Date.now() / window.periodMs)}`) ?? 0;
    return { over: used >= window.limit, headers: rateHeaders(window, used) };
  }

  private reply(
    res: ServerResponse,
    call: RecordedMastodonCall,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
    bare = false,
  ): void {
    call.status = status;
    const general = bare ? {} : rateHeaders(this.rateLimits.api, 0);
    const write = () => {
      // A header given in another case replaces the general one rather than joining it.
      const given = Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
      );
      res.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        ...general,
        ...given,
      });
      res.end(JSON.stringify(body));
    };
    const delay = this.latency.ms + (Math.random() * 2 - 1) * this.latency.jitterMs;
    if (delay > 0) setTimeout(write, delay);
    else write();
  }
}

/** The X-RateLimit-* headers of a fixed window: the reset is an ISO time, as Mastodon writes it. */
function rateHeaders(window: Window, used: number): Record<string, string> {
  const now = Date.now();
  const reset = new Date(now + (window.periodMs - (now % window.periodMs)));
  return {
    'x-ratelimit-limit': String(window.limit),
    'x-ratelimit-remaining': String(Math.max(0, window.limit - used)),
    'x-ratelimit-reset': reset.toISOString(),
  };
}

/**
 * The stand-in's own count of a status (written apart from Herald's): grapheme clusters, each
 * http(s) link counting `perUrl`.
 */
function countLikeMastodon(text: string, perUrl: number): number {
  const countable = text.replace(/https?:\/\/[^\s]+\.[^\s]+/g, 'x'.repeat(perUrl));
  return [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(countable)].length;
}

function routeOf(method: string, path: string): MastodonRoute | null {
  if (method === 'GET' && path === '/api/v1/accounts/verify_credentials')
    return 'verify_credentials';
  if (method === 'GET' && path === '/api/v2/instance') return 'instance';
  if (method === 'POST' && path === '/api/v2/media') return 'upload_media';
  if (method === 'GET' && /^\/api\/v1\/media\/\d+$/.test(path)) return 'get_media';
  if (method === 'POST' && path === '/api/v1/statuses') return 'post_status';
  if (method === 'POST' && path === '/api/v1/apps') return 'register_app';
  if (method === 'GET' && path === '/oauth/authorize') return 'authorize';
  if (method === 'POST' && path === '/oauth/token') return 'token';
  return null;
}

async function readBody(
  req: IncomingMessage,
): Promise<{ body: Record<string, unknown>; files: RecordedMastodonFile[] }> {
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) {
    const { fields, files } = await readMultipart(req);
    return { body: fields, files };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return { body: {}, files: [] };
  if (type.startsWith('application/x-www-form-urlencoded'))
    return { body: Object.fromEntries(new URLSearchParams(text)), files: [] };
  try {
    return { body: JSON.parse(text) as Record<string, unknown>, files: [] };
  } catch {
    return { body: { unreadable: text }, files: [] };
  }
}

import { createHash, randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { AnswerDelay } from './answer-delay';

/** The calls the stand-in answers, by the name a script or a recorded call uses. */
export type XRoute =
  | 'authorize'
  | 'token'
  | 'users_me'
  | 'media_upload'
  | 'media_metadata'
  | 'create_post'
  | 'user_posts';

export interface RecordedXCall {
  route: XRoute | 'unknown';
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** The JSON or form body. */
  body: Record<string, unknown>;
  at: number;
  status: number | null;
}

export interface XScript {
  /** Only for calls of this user (its id); any user's when absent. */
  user?: string;
  /** Answer with this status and body instead of serving the call. */
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Read the request and never answer. */
  hang?: boolean;
  /** Close the connection once the request is read, before serving it (nothing is made). */
  beforeServing?: 'drop';
  /** Serve the call (a post is made, a token rotated), then close the connection unanswered. */
  afterServing?: 'drop';
  delayMs?: number;
}

export interface XUser {
  id: string;
  name: string;
  username: string;
}

export interface MadePost {
  id: string;
  authorId: string;
  /** As the user sent it. */
  text: string;
  mediaIds: string[];
  replyTo: string | null;
  /** When it was made. */
  at: number;
}

interface IssuedCode {
  userId: string;
  redirectUri: string;
  challenge: string;
  scopes: string;
  used: boolean;
}

interface Token {
  userId: string;
  expiresAt: number;
  scopes: string;
}

interface Media {
  id: string;
  userId: string;
  bytes: number;
  altText: string | null;
}

/** X's answer to a refresh token it no longer honours (used, revoked, never issued). */
export const INVALID_TOKEN = {
  error: 'invalid_request',
  error_description: 'Value passed for the token was invalid.',
};

const DUPLICATE = {
  detail: 'You are not allowed to create a Tweet with duplicate content.',
  type: 'about:blank',
  title: 'Forbidden',
  status: 403,
};

const TOO_MANY = {
  title: 'Too Many Requests',
  detail: 'Too Many Requests',
  type: 'about:blank',
  status: 429,
};

const UNAUTHORIZED = {
  title: 'Unauthorized',
  type: 'about:blank',
  status: 401,
  detail: 'Unauthorized',
};

/** X's published limit on creating posts, per user; other routes are not counted. */
export const X_POST_LIMIT = { limit: 100, periodMs: 15 * 60_000 };

/**
 * A local X speaking API v2 as X documents it: OAuth 2.0 with PKCE (the consent page, where the
 * test plays the user, and the token endpoint with HTTP Basic client authentication, single-use
 * codes and refresh tokens rotated at every renewal), `users/me`, media upload and metadata,
 * posts refused as duplicates when the user's recent post has the same text, the user's recent
 * posts with t.co links and their expansions, and the x-rate-limit-* headers on posts.
 */
export class XStandIn {
  readonly calls: RecordedXCall[] = [];
  readonly posts: MadePost[] = [];
  /** Every access and refresh token it gave out, for specs that look for them where they must not be. */
  readonly issued: string[] = [];
  readonly client = {
    id: randomBytes(12).toString('base64url'),
    secret: randomBytes(24).toString('base64url'),
  };
  /** Access tokens live this long (X: two hours). */
  tokenSeconds = 7_200;
  /** Whether `offline.access` brings a refresh token (X: it does). */
  refreshTokens = true;
  /**
   * How long a rotated refresh token is still honoured (X documents none: 0). Some servers allow a
   * grace so a client whose answer was lost can ask again; the renewal benchmark shows both.
   */
  rotationGraceMs = 0;
  private readonly rotated = new Map<string, { userId: string; at: number }>();
  /** Consulted for every call no script answers: a fault to play, or undefined to serve it. */
  faults?: (route: XRoute, body: Record<string, unknown>) => XScript | undefined;
  private readonly users = new Map<string, XUser>();
  private readonly codes = new Map<string, IssuedCode>();
  private readonly tokens = new Map<string, Token>();
  private readonly refresh = new Map<string, string>();
  private readonly media = new Map<string, Media>();
  private readonly scripts = new Map<XRoute, XScript[]>();
  private readonly postWindows = new Map<string, number[]>();
  private readonly open = new Set<ServerResponse>();
  private redirectUris: string[] = [];
  private consenting: string | null = null;
  private declining = false;
  private readonly latency = new AnswerDelay();

  /** Answers leave `ms` (± `jitterMs`) after the call was served; it counts when it arrives. */
  answerAfter(ms: number, jitterMs = 0): this {
    this.latency.set(ms, jitterMs);
    return this;
  }

  private server?: Server;
  private nextId = 1_900_000_000_000_000_000n;

  get url(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  /** Herald's settings for this X: the app, its endpoints. */
  env(): Record<string, string> {
    return {
      X_CLIENT_ID: this.client.id,
      X_CLIENT_SECRET: this.client.secret,
      X_API_URL: this.url,
      X_AUTHORIZE_URL: `${this.url}/i/oauth2/authorize`,
    };
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

  /** The app's registered callback URLs (X refuses any other). */
  registerCallback(uri: string): this {
    this.redirectUris.push(uri);
    return this;
  }

  addUser(username = `herald${this.users.size + 1}`, name = `Herald ${username}`): XUser {
    const user = { id: this.id(), name, username };
    this.users.set(user.id, user);
    return user;
  }

  /** The user signed in at the consent page, who authorizes the app. */
  signIn(user: XUser): void {
    this.consenting = user.id;
    this.declining = false;
  }

  /** The user presses "Cancel" at the next consent. */
  decline(): void {
    this.declining = true;
  }

  /** The user revokes the app: every token and refresh token of theirs stops working. */
  revoke(user: XUser): void {
    for (const [token, held] of this.tokens) if (held.userId === user.id) this.tokens.delete(token);
    for (const [token, userId] of this.refresh) if (userId === user.id) this.refresh.delete(token);
  }

  /** Ends the user's access tokens now (their refresh tokens still work). */
  expireTokens(user: XUser): void {
    for (const held of this.tokens.values())
      if (held.userId === user.id) held.expiresAt = Date.now() - 1;
  }

  /** The next calls of `route` get these answers, in order, before normal service resumes. */
  script(route: XRoute, ...answers: XScript[]): void {
    this.scripts.set(route, [...(this.scripts.get(route) ?? []), ...answers]);
  }

  callsOf(route: XRoute): RecordedXCall[] {
    return this.calls.filter((call) => call.route === route);
  }

  /** Renewals served (a refresh token taken for new tokens). */
  renewalsOf(user: XUser): number {
    return this.callsOf('token').filter(
      (call) =>
        call.body.grant_type === 'refresh_token' &&
        call.status === 200 &&
        call.body._user === user.id,
    ).length;
  }

  postsOf(user: XUser): MadePost[] {
    return this.posts.filter((post) => post.authorId === user.id);
  }

  mediaById(id: string): Media | undefined {
    return this.media.get(id);
  }

  private id(): string {
    this.nextId += BigInt(1 + Math.floor(Math.random() * 1000));
    return this.nextId.toString();
  }

  private nextScript(route: XRoute, userId: string | null): XScript | undefined {
    const list = this.scripts.get(route) ?? [];
    const index = list.findIndex((s) => s.user === undefined || s.user === userId);
    return index === -1 ? undefined : list.splice(index, 1)[0];
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x.local');
    const route = routeOf(req.method ?? '', url.pathname);
    const body = await readBody(req);
    const call: RecordedXCall = {
      route: route ?? 'unknown',
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      at: Date.now(),
      status: null,
    };
    this.calls.push(call);
    this.open.add(res);
    res.once('close', () => this.open.delete(res));
    if (!route) return this.reply(res, call, 404, { title: 'Not Found Error', status: 404 });
    // A renewal is the refresh token's user's; any other call the bearer token's.
    const userId =
      route === 'token'
        ? (this.refresh.get(String(body.refresh_token)) ?? null)
        : (this.bearer(req)?.userId ?? null);
    const scripted = this.nextScript(route, userId) ?? this.faults?.(route, body);
    if (scripted?.hang) return;
    if (scripted?.beforeServing === 'drop') return void res.socket?.destroy();
    if (scripted?.delayMs) await new Promise((resolve) => setTimeout(resolve, scripted.delayMs));
    if (scripted?.status !== undefined)
      return this.reply(res, call, scripted.status, scripted.body ?? {}, scripted.headers);
    const answer = this.serve(route, call, req);
    await this.latency.wait();
    if (scripted?.afterServing === 'drop') return void res.socket?.destroy();
    if (answer.location) {
      call.status = 302;
      res.writeHead(302, { location: answer.location });
      return void res.end();
    }
    this.reply(res, call, answer.status, answer.body, answer.headers);
  }

  private serve(
    route: XRoute,
    call: RecordedXCall,
    req: IncomingMessage,
  ): { status: number; body?: unknown; headers?: Record<string, string>; location?: string } {
    if (route === 'authorize') return this.authorize(call.query);
    if (route === 'token') return this.token(call, req);
    const token = this.bearer(req);
    if (!token || token.expiresAt <= Date.now()) return { status: 401, body: UNAUTHORIZED };
    const user = this.users.get(token.userId)!;
    switch (route) {
      case 'users_me':
        return { status: 200, body: { data: user } };
      case 'media_upload':
        return this.upload(user, call.body);
      case 'media_metadata':
        return this.describe(user, call.body);
      case 'create_post':
        return this.createPost(user, call.body);
      case 'user_posts':
        return this.recentPosts(call);
    }
  }

  private authorize(query: URLSearchParams) {
    const redirectUri = query.get('redirect_uri') ?? '';
    if (query.get('client_id') !== this.client.id || !this.redirectUris.includes(redirectUri))
      return {
        status: 400,
        body: { error: 'Something went wrong. You weren’t able to give access to the App.' },
      };
    const back = new URL(redirectUri);
    const state = query.get('state');
    const answer = (params: Record<string, string>) => {
      for (const [name, value] of Object.entries(params)) back.searchParams.set(name, value);
      if (state !== null) back.searchParams.set('state', state);
      return { status: 302, location: back.toString() };
    };
    if (query.get('code_challenge_method') !== 'S256' || !query.get('code_challenge'))
      return answer({
        error: 'invalid_request',
        error_description: 'Missing required parameter [code_challenge].',
      });
    if (this.declining || this.consenting === null) {
      this.declining = false;
      return answer({ error: 'access_denied' });
    }
    const code = randomBytes(32).toString('base64url');
    this.codes.set(code, {
      userId: this.consenting,
      redirectUri,
      challenge: query.get('code_challenge')!,
      scopes: query.get('scope') ?? '',
      used: false,
    });
    return answer({ code });
  }

  private token(call: RecordedXCall, req: IncomingMessage) {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [id, secret] = Buffer.from(basic ?? '', 'base64')
      .toString()
      .split(':')
      .map(decodeURIComponent);
    if (id !== this.client.id || secret !== this.client.secret)
      return {
        status: 401,
        body: {
          error: 'unauthorized_client',
          error_description: 'Missing valid authorization header',
        },
      };
    const body = call.body as Record<string, string>;
    if (body.grant_type === 'authorization_code') {
      const code = this.codes.get(body.code ?? '');
      const verifier = createHash('sha256')
        .update(body.code_verifier ?? '')
        .digest('base64url');
      if (
        !code ||
        code.used ||
        code.redirectUri !== body.redirect_uri ||
        code.challenge !== verifier
      )
        return { status: 400, body: INVALID_TOKEN };
      code.used = true;
      return { status: 200, body: this.issue(code.userId, code.scopes) };
    }
    if (body.grant_type === 'refresh_token') {
      const rotated = this.rotated.get(body.refresh_token ?? '');
      const userId =
        this.refresh.get(body.refresh_token ?? '') ??
        (rotated && rotated.at > Date.now() - this.rotationGraceMs ? rotated.userId : undefined);
      if (!userId) return { status: 400, body: INVALID_TOKEN };
      // Rotated: the refresh token just used works no more (but within the grace, if one is set).
      this.refresh.delete(body.refresh_token);
      this.rotated.set(body.refresh_token, { userId, at: rotated?.at ?? Date.now() });
      call.body._user = userId;
      return {
        status: 200,
        body: this.issue(userId, 'tweet.read tweet.write users.read media.write offline.access'),
      };
    }
    return {
      status: 400,
      body: {
        error: 'unsupported_grant_type',
        error_description: 'Value passed for the grant type was invalid.',
      },
    };
  }

  private issue(userId: string, scopes: string) {
    const accessToken = randomBytes(32).toString('base64url');
    this.issued.push(accessToken);
    this.tokens.set(accessToken, {
      userId,
      scopes,
      expiresAt: Date.now() + this.tokenSeconds * 1000,
    });
    const answer: Record<string, unknown> = {
      token_type: 'bearer',
      expires_in: this.tokenSeconds,
      access_token: accessToken,
      scope: scopes,
    };
    if (this.refreshTokens && scopes.split(' ').includes('offline.access')) {
      const refreshToken = randomBytes(32).toString('base64url');
      this.issued.push(refreshToken);
      this.refresh.set(refreshToken, userId);
      answer.refresh_token = refreshToken;
    }
    return answer;
  }

  private upload(user: XUser, body: Record<string, unknown>) {
    const bytes =
      typeof body.media === 'string' ? Buffer.from(body.media, 'base64') : Buffer.alloc(0);
    if (bytes.length === 0 || body.media_category !== 'tweet_image')
      return {
        status: 400,
        body: invalidRequest('media', 'The media parameter is missing or invalid.'),
      };
    const media = { id: this.id(), userId: user.id, bytes: bytes.length, altText: null };
    this.media.set(media.id, media);
    return {
      status: 200,
      body: {
        data: {
          id: media.id,
          media_key: `3_${media.id}`,
          size: bytes.length,
          expires_after_secs: 86400,
        },
      },
    };
  }

  private describe(user: XUser, body: Record<string, unknown>) {
    const media = this.media.get(String(body.id));
    const alt = (body.metadata as { alt_text?: { text?: unknown } } | undefined)?.alt_text?.text;
    if (!media || media.userId !== user.id || typeof alt !== 'string')
      return { status: 400, body: invalidRequest('id', 'The media id is invalid.') };
    media.altText = alt;
    return {
      status: 200,
      body: { data: { id: media.id, associated_metadata: { alt_text: { text: alt } } } },
    };
  }

  private createPost(user: XUser, body: Record<string, unknown>) {
    const { allowed, headers } = this.countPost(user);
    if (!allowed) return { status: 429, body: TOO_MANY, headers };
    const text = typeof body.text === 'string' ? body.text : '';
    const mediaIds = ((body.media as { media_ids?: unknown } | undefined)?.media_ids ??
      []) as string[];
    if (!mediaIds.every((id) => this.media.get(id)?.userId === user.id))
      return {
        status: 400,
        body: invalidRequest('media.media_ids', 'Your media IDs are invalid.'),
        headers,
      };
    const replyTo =
      (body.reply as { in_reply_to_tweet_id?: string } | undefined)?.in_reply_to_tweet_id ?? null;
    if (replyTo !== null && !this.posts.some((post) => post.id === replyTo))
      return {
        status: 403,
        body: {
          ...DUPLICATE,
          detail: 'You attempted to reply to a Tweet that is deleted or not visible to you.',
        },
        headers,
      };
    if (
      text !== '' &&
      this.postsOf(user)
        .slice(-20)
        .some((post) => post.text === text)
    )
      return { status: 403, body: DUPLICATE, headers };
    const post = { id: this.id(), authorId: user.id, text, mediaIds, replyTo, at: Date.now() };
    this.posts.push(post);
    return {
      status: 201,
      body: {
        data: { id: post.id, text: this.shown(post).text, edit_history_tweet_ids: [post.id] },
      },
      headers,
    };
  }

  private recentPosts(call: RecordedXCall) {
    const userId = /^\/2\/users\/(\d+)\/tweets$/.exec(call.path)![1];
    const count = Math.min(100, Math.max(5, Number(call.query.get('max_results') ?? 10)));
    const data = this.posts
      .filter((post) => post.authorId === userId)
      .slice(-count)
      .reverse()
      .map((post) => this.shown(post));
    return {
      status: 200,
      body: data.length
        ? { data, meta: { result_count: data.length } }
        : { meta: { result_count: 0 } },
    };
  }

  /** As X shows a post: links shortened to t.co, a link for its images, `&<>` escaped. */
  private shown(post: MadePost) {
    const urls: { url: string; expanded_url: string; display_url: string }[] = [];
    const shorten = (expanded: string) => {
      const url = `https://t.co/${createHash('sha1')
        .update(expanded + post.id)
        .digest('base64url')
        .slice(0, 10)}`;
      urls.push({ url, expanded_url: expanded, display_url: expanded.replace(/^https?:\/\//, '') });
      return url;
    };
    let text = post.text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    text = text.replace(/https?:\/\/[^\s]+/g, shorten);
    const user = this.users.get(post.authorId)!;
    if (post.mediaIds.length > 0)
      text =
        `${text} ${shorten(`https://x.com/${user.username}/status/${post.id}/photo/1`)}`.trim();
    return {
      id: post.id,
      text,
      edit_history_tweet_ids: [post.id],
      entities: urls.length ? { urls } : undefined,
    };
  }

  /** Counts a post against the user's window: whether it is allowed, and the headers X sends. */
  private countPost(user: XUser): { allowed: boolean; headers: Record<string, string> } {
    const now = Date.now();
    const sent = (this.postWindows.get(user.id) ?? []).filter(
      (at) => at > now - X_POST_LIMIT.periodMs,
    );
    const allowed = sent.length < X_POST_LIMIT.limit;
    if (allowed) sent.push(now);
    this.postWindows.set(user.id, sent);
    const reset = Math.ceil(((sent[0] ?? now) + X_POST_LIMIT.periodMs) / 1000);
    return {
      allowed,
      headers: {
        'x-rate-limit-limit': String(X_POST_LIMIT.limit),
        'x-rate-limit-remaining': String(X_POST_LIMIT.limit - sent.length),
        'x-rate-limit-reset': String(reset),
      },
    };
  }

  private bearer(req: IncomingMessage): Token | null {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    return (token && this.tokens.get(token)) || null;
  }

  private reply(
    res: ServerResponse,
    call: RecordedXCall,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    call.status = status;
    const problem = status >= 400 && typeof body === 'object' && body !== null && 'title' in body;
    res.writeHead(status, {
      'content-type': problem ? 'application/problem+json' : 'application/json; charset=utf-8',
      date: new Date().toUTCString(),
      ...headers,
    });
    res.end(JSON.stringify(body));
  }
}

function invalidRequest(parameter: string, message: string) {
  return {
    errors: [{ parameters: { [parameter]: [] }, message }],
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: 'https://api.twitter.com/2/problems/invalid-request',
  };
}

function routeOf(method: string, path: string): XRoute | null {
  if (method === 'GET' && path === '/i/oauth2/authorize') return 'authorize';
  if (method === 'POST' && path === '/2/oauth2/token') return 'token';
  if (method === 'GET' && path === '/2/users/me') return 'users_me';
  if (method === 'POST' && path === '/2/media/upload') return 'media_upload';
  if (method === 'POST' && path === '/2/media/metadata') return 'media_metadata';
  if (method === 'POST' && path === '/2/tweets') return 'create_post';
  if (method === 'GET' && /^\/2\/users\/\d+\/tweets$/.test(path)) return 'user_posts';
  return null;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (raw === '') return {};
  if ((req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(raw));
  try {
    return JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return { _unreadable: raw };
  }
}

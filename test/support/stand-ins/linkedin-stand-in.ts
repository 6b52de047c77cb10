import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { AnswerDelay } from './answer-delay';

export type LinkedInRoute =
  | 'authorize'
  | 'token'
  | 'userinfo'
  | 'organization_acls'
  | 'organization'
  | 'initialize_upload'
  | 'upload'
  | 'create_post'
  | 'author_posts'
  | 'comment'
  | 'comments';

export interface RecordedLinkedInCall {
  route: LinkedInRoute | 'unknown';
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  bytes: number;
  at: number;
  status: number | null;
}

export interface LinkedInScript {
  /** Answer with this status and body instead of serving the call. */
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Read the request and never answer. */
  hang?: boolean;
  /** Close the connection before serving the call (nothing is made). */
  beforeServing?: 'drop';
  /** Serve the call (a post is made), then close the connection unanswered. */
  afterServing?: 'drop';
}

export interface MadeComment {
  urn: string;
  post: string;
  actor: string;
  text: string;
}

export interface LinkedInMember {
  sub: string;
  name: string;
}

export interface MadeLinkedInPost {
  urn: string;
  author: string;
  /** As sent, little text escapes and all. */
  commentary: string;
  /** As LinkedIn shows it: escapes read, and cut where an unescaped reserved character stood. */
  shown: string;
  content: Record<string, unknown> | undefined;
  at: number;
}

interface Token {
  sub: string;
  scopes: string[];
  expiresAt: number;
}

interface Code {
  sub: string;
  redirectUri: string;
  scopes: string[];
  used: boolean;
}

/** LinkedIn's published limit on creating posts: 150 a day per member (and organization). */
export const LINKEDIN_DAILY_POSTS = 150;

const VERSION_MISSING = {
  status: 400,
  code: 'VERSION_MISSING',
  message:
    'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
};

const INVALID_REFRESH = {
  error: 'invalid_request',
  error_description:
    'The provided authorization grant or refresh token is invalid, expired or revoked',
};

/**
 * LinkedIn's OAuth 2.0 (3-legged: the consent page, where the test plays the member, and the
 * token endpoint taking the app's client in its form) and its versioned REST API as LinkedIn
 * documents it: `/v2/userinfo`, organization ACLs and organizations, images initialized then
 * PUT, posts whose `commentary` is "little text" (an unescaped reserved character cuts the post
 * short, as LinkedIn's parser does), a 422 for duplicate content naming the existing post, and
 * the author's posts for apps granted the scope to read them.
 */
export class LinkedInStandIn {
  readonly calls: RecordedLinkedInCall[] = [];
  readonly posts: MadeLinkedInPost[] = [];
  readonly comments: MadeComment[] = [];
  readonly client = {
    id: randomBytes(8).toString('hex'),
    secret: randomBytes(16).toString('base64url'),
  };
  /** Whether the app may renew (LinkedIn gives refresh tokens to few apps). */
  refreshTokens = false;
  /** Whether the 422 for duplicate content names the existing post. */
  duplicateNamesPost = true;
  /** Scopes the member grants beyond those asked (e.g. r_member_social, to read posts). */
  extraScopes: string[] = [];
  private readonly members = new Map<string, LinkedInMember>();
  private readonly organizations = new Map<
    string,
    { name: string; vanity: string; admins: Set<string> }
  >();
  private readonly codes = new Map<string, Code>();
  private readonly tokens = new Map<string, Token>();
  private readonly refresh = new Map<
    string,
    { sub: string; scopes: string[]; expiresAt: number }
  >();
  private readonly images = new Map<string, { owner: string; bytes: number }>();
  private readonly scripts = new Map<LinkedInRoute, LinkedInScript[]>();
  private readonly open = new Set<ServerResponse>();
  private redirectUris: string[] = [];
  private consenting: string | null = null;
  private declining: string | null = null;
  private readonly latency = new AnswerDelay();

  /** Answers leave `ms` (± `jitterMs`) after the call was served; it counts when it arrives. */
  answerAfter(ms: number, jitterMs = 0): this {
    this.latency.set(ms, jitterMs);
    return this;
  }

  /** Posts per author in any day (LinkedIn's member and organization limit). */
  private readonly daily = new Map<string, number[]>();
  private server?: Server;
  private nextId = 7_300_000_000_000_000_000n;

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  env(): Record<string, string> {
    return {
      LINKEDIN_CLIENT_ID: this.client.id,
      LINKEDIN_CLIENT_SECRET: this.client.secret,
      LINKEDIN_API_URL: this.url,
      LINKEDIN_OAUTH_URL: `${this.url}/oauth/v2`,
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

  registerCallback(uri: string): this {
    this.redirectUris.push(uri);
    return this;
  }

  addMember(name = `Member ${this.members.size + 1}`): LinkedInMember {
    const member = { sub: randomBytes(6).toString('base64url'), name };
    this.members.set(member.sub, member);
    return member;
  }

  /** An organization `admin` administers: its URN. */
  addOrganization(name: string, vanity: string, admin: LinkedInMember): string {
    const id = String(10_000 + this.organizations.size);
    this.organizations.set(id, { name, vanity, admins: new Set([admin.sub]) });
    return `urn:li:organization:${id}`;
  }

  signIn(member: LinkedInMember): void {
    this.consenting = member.sub;
    this.declining = null;
  }

  /** The member cancels at the next consent, with LinkedIn's own error code. */
  decline(error: 'user_cancelled_authorize' | 'user_cancelled_login'): void {
    this.declining = error;
  }

  revoke(member: LinkedInMember): void {
    for (const [token, held] of this.tokens) if (held.sub === member.sub) this.tokens.delete(token);
    for (const [token, held] of this.refresh)
      if (held.sub === member.sub) this.refresh.delete(token);
  }

  script(route: LinkedInRoute, ...answers: LinkedInScript[]): void {
    this.scripts.set(route, [...(this.scripts.get(route) ?? []), ...answers]);
  }

  callsOf(route: LinkedInRoute): RecordedLinkedInCall[] {
    return this.calls.filter((call) => call.route === route);
  }

  postsBy(author: string): MadeLinkedInPost[] {
    return this.posts.filter((post) => post.author === author);
  }

  private id(): string {
    this.nextId += BigInt(1 + Math.floor(Math.random() * 1000));
    return this.nextId.toString();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://linkedin.local');
    const route = routeOf(req.method ?? '', url.pathname, url.searchParams);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const call: RecordedLinkedInCall = {
      route: route ?? 'unknown',
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: parseBody(req, raw),
      bytes: raw.length,
      at: Date.now(),
      status: null,
    };
    this.calls.push(call);
    this.open.add(res);
    res.once('close', () => this.open.delete(res));
    if (!route) return this.reply(res, call, 404, { status: 404, message: 'Resource not found' });
    const scripted = (this.scripts.get(route) ?? []).shift();
    if (scripted?.hang) return;
    if (scripted?.beforeServing === 'drop') return void res.socket?.destroy();
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
    route: LinkedInRoute,
    call: RecordedLinkedInCall,
    req: IncomingMessage,
  ): { status: number; body?: unknown; headers?: Record<string, string>; location?: string } {
    if (route === 'authorize') return this.authorize(call.query);
    if (route === 'token') return this.token(call.body as Record<string, string>);
    const token = this.bearer(req);
    if (!token)
      return {
        status: 401,
        body: {
          status: 401,
          serviceErrorCode: 65600,
          code: 'INVALID_ACCESS_TOKEN',
          message: 'Invalid access token',
        },
      };
    if (route === 'userinfo') {
      const member = this.members.get(token.sub)!;
      return {
        status: 200,
        body: { sub: member.sub, name: member.name, locale: { country: 'US', language: 'en' } },
      };
    }
    if (route === 'upload') return this.upload(call);
    if (
      req.headers['x-restli-protocol-version'] !== '2.0.0' ||
      !/^\d{6}$/.test(String(req.headers['linkedin-version'] ?? ''))
    )
      return { status: 400, body: VERSION_MISSING };
    switch (route) {
      case 'organization_acls':
        return this.acls(token);
      case 'organization': {
        const id = call.path.split('/').pop()!;
        const organization = this.organizations.get(id);
        if (!organization) return { status: 404, body: { status: 404, message: 'Not Found' } };
        return {
          status: 200,
          body: {
            id: Number(id),
            localizedName: organization.name,
            vanityName: organization.vanity,
          },
        };
      }
      case 'initialize_upload':
        return this.initializeUpload(token, call.body);
      case 'create_post':
        return this.createPost(token, call.body);
      case 'author_posts':
        return this.authorPosts(token, call.query);
      case 'comment':
        return this.comment(token, call);
      case 'comments':
        return this.commentsOn(token, call);
    }
    return { status: 404 };
  }

  private authorize(query: URLSearchParams) {
    const redirectUri = query.get('redirect_uri') ?? '';
    if (query.get('client_id') !== this.client.id || !this.redirectUris.includes(redirectUri))
      return {
        status: 400,
        body: {
          error: 'invalid_request',
          error_description: 'The redirect_uri does not match the registered value',
        },
      };
    const back = new URL(redirectUri);
    const state = query.get('state');
    const answer = (params: Record<string, string>) => {
      for (const [name, value] of Object.entries(params)) back.searchParams.set(name, value);
      if (state !== null) back.searchParams.set('state', state);
      return { status: 302, location: back.toString() };
    };
    if (this.declining || this.consenting === null) {
      const error = this.declining ?? 'user_cancelled_login';
      this.declining = null;
      return answer({ error, error_description: 'The user cancelled the authorization' });
    }
    const code = randomBytes(24).toString('base64url');
    const scopes = [
      ...(query.get('scope') ?? '').split(/\s+/).filter(Boolean),
      ...this.extraScopes,
    ];
    this.codes.set(code, { sub: this.consenting, redirectUri, scopes, used: false });
    return answer({ code });
  }

  private token(form: Record<string, string>) {
    if (form.client_id !== this.client.id || form.client_secret !== this.client.secret)
      return {
        status: 401,
        body: { error: 'invalid_client', error_description: 'Client authentication failed' },
      };
    if (form.grant_type === 'authorization_code') {
      const code = this.codes.get(form.code ?? '');
      if (!code || code.used || code.redirectUri !== form.redirect_uri)
        return {
          status: 400,
          body: {
            error: 'invalid_request',
            error_description: 'Unable to retrieve access token: authorization code not found',
          },
        };
      code.used = true;
      return { status: 200, body: this.issue(code.sub, code.scopes, null) };
    }
    if (form.grant_type === 'refresh_token') {
      const held = this.refresh.get(form.refresh_token ?? '');
      if (!held || held.expiresAt <= Date.now()) return { status: 400, body: INVALID_REFRESH };
      return { status: 200, body: this.issue(held.sub, held.scopes, form.refresh_token) };
    }
    return {
      status: 400,
      body: { error: 'unsupported_grant_type', error_description: 'Unsupported grant type' },
    };
  }

  /** A refresh token keeps its own end across renewals (LinkedIn's 365 days). */
  private issue(sub: string, scopes: string[], refreshToken: string | null) {
    const accessToken = randomBytes(32).toString('base64url');
    this.tokens.set(accessToken, { sub, scopes, expiresAt: Date.now() + 5_184_000_000 });
    const answer: Record<string, unknown> = {
      access_token: accessToken,
      expires_in: 5_183_999,
      scope: scopes.join(','),
    };
    if (this.refreshTokens) {
      const token = refreshToken ?? randomBytes(32).toString('base64url');
      const held = this.refresh.get(token) ?? {
        sub,
        scopes,
        expiresAt: Date.now() + 31_536_000_000,
      };
      this.refresh.set(token, held);
      answer.refresh_token = token;
      answer.refresh_token_expires_in = Math.floor((held.expiresAt - Date.now()) / 1000);
    }
    return answer;
  }

  private acls(token: Token) {
    if (!token.scopes.includes('r_organization_admin'))
      return {
        status: 403,
        body: {
          status: 403,
          serviceErrorCode: 100,
          code: 'ACCESS_DENIED',
          message: 'Not enough permissions to access: organizationAcls.FINDER-roleAssignee',
        },
      };
    const elements = [...this.organizations]
      .filter(([, organization]) => organization.admins.has(token.sub))
      .map(([id]) => ({
        organization: `urn:li:organization:${id}`,
        role: 'ADMINISTRATOR',
        state: 'APPROVED',
        roleAssignee: `urn:li:person:${token.sub}`,
      }));
    return { status: 200, body: { elements, paging: { count: 10, start: 0, links: [] } } };
  }

  private mayAuthor(token: Token, author: unknown): boolean {
    if (author === `urn:li:person:${token.sub}`) return token.scopes.includes('w_member_social');
    const id = /^urn:li:organization:(\d+)$/.exec(String(author))?.[1];
    return (
      id !== undefined &&
      token.scopes.includes('w_organization_social') &&
      !!this.organizations.get(id)?.admins.has(token.sub)
    );
  }

  private initializeUpload(token: Token, body: Record<string, unknown>) {
    const owner = (body.initializeUploadRequest as { owner?: unknown } | undefined)?.owner;
    if (!this.mayAuthor(token, owner))
      return {
        status: 403,
        body: {
          status: 403,
          serviceErrorCode: 100,
          message: `Not enough permissions to upload for ${String(owner)}`,
        },
      };
    const id = `C4E${this.id()}`;
    this.images.set(id, { owner: String(owner), bytes: 0 });
    return {
      status: 200,
      body: {
        value: {
          uploadUrlExpiresAt: Date.now() + 86_400_000,
          uploadUrl: `${this.url}/dms-uploader/${id}`,
          image: `urn:li:image:${id}`,
        },
      },
    };
  }

  private upload(call: RecordedLinkedInCall) {
    const image = this.images.get(call.path.split('/').pop()!);
    if (!image || call.bytes === 0) return { status: 400, body: { message: 'Bad upload' } };
    image.bytes = call.bytes;
    return { status: 201, body: {} };
  }

  private createPost(token: Token, body: Record<string, unknown>) {
    if (!this.mayAuthor(token, body.author))
      return {
        status: 403,
        body: {
          status: 403,
          serviceErrorCode: 100,
          message: `Not enough permissions to post as ${String(body.author)}`,
        },
      };
    const commentary = typeof body.commentary === 'string' ? body.commentary : '';
    const content = body.content as
      { media?: { id?: string }; multiImage?: { images?: { id?: string }[] } } | undefined;
    const imageIds = content?.media
      ? [content.media.id]
      : (content?.multiImage?.images ?? []).map((i) => i.id);
    if (!imageIds.every((id) => this.images.get(String(id).replace('urn:li:image:', ''))?.bytes))
      return { status: 400, body: { status: 400, message: 'Image is not uploaded' } };
    const day = (this.daily.get(String(body.author)) ?? []).filter(
      (at) => at > Date.now() - 86_400_000,
    );
    this.daily.set(String(body.author), day);
    if (day.length >= LINKEDIN_DAILY_POSTS)
      return {
        status: 429,
        body: {
          status: 429,
          message:
            'Resource level throttle APPLICATION_AND_MEMBER DAY limit for calls to this resource is reached.',
        },
      };
    const earlier = this.postsBy(String(body.author)).find(
      (post) => post.commentary === commentary,
    );
    if (earlier && commentary !== '')
      return {
        status: 422,
        body: {
          status: 422,
          message: this.duplicateNamesPost
            ? `Content is a duplicate of ${earlier.urn}`
            : 'Content is a duplicate',
        },
      };
    const post = {
      urn: `urn:li:share:${this.id()}`,
      author: String(body.author),
      commentary,
      shown: readLittleText(commentary),
      content: body.content as Record<string, unknown> | undefined,
      at: Date.now(),
    };
    this.posts.push(post);
    day.push(Date.now());
    return { status: 201, body: {}, headers: { 'x-restli-id': post.urn } };
  }

  private comment(token: Token, call: RecordedLinkedInCall) {
    const post = decodeURIComponent(call.path.split('/')[3]);
    const body = call.body as { actor?: string; object?: string; message?: { text?: unknown } };
    if (!this.posts.some((p) => p.urn === post) || body.object !== post)
      return { status: 404, body: { status: 404, message: `Post ${post} not found` } };
    if (!this.mayAuthor(token, body.actor) || typeof body.message?.text !== 'string')
      return {
        status: 403,
        body: { status: 403, serviceErrorCode: 100, message: 'Not enough permissions to comment' },
      };
    const urn = `urn:li:comment:(${post},${this.id()})`;
    this.comments.push({ urn, post, actor: body.actor!, text: body.message.text });
    return {
      status: 201,
      body: { $URN: urn, actor: body.actor, object: post, message: body.message },
      headers: { 'x-restli-id': urn },
    };
  }

  private commentsOn(token: Token, call: RecordedLinkedInCall) {
    if (!token.scopes.includes('r_member_social'))
      return {
        status: 403,
        body: {
          status: 403,
          serviceErrorCode: 100,
          message: 'Not enough permissions to access: socialActions.comments',
        },
      };
    const post = decodeURIComponent(call.path.split('/')[3]);
    const elements = this.comments
      .filter((c) => c.post === post)
      .map((c) => ({ $URN: c.urn, actor: c.actor, object: c.post, message: { text: c.text } }));
    return { status: 200, body: { elements, paging: { count: 10, start: 0 } } };
  }

  private authorPosts(token: Token, query: URLSearchParams) {
    if (!token.scopes.includes('r_member_social'))
      return {
        status: 403,
        body: {
          status: 403,
          serviceErrorCode: 100,
          message: 'Not enough permissions to access: posts.FINDER-author',
        },
      };
    const count = Number(query.get('count') ?? 10);
    const elements = this.postsBy(query.get('author') ?? '')
      .slice(-count)
      .reverse()
      .map((post) => ({ id: post.urn, author: post.author, commentary: post.commentary }));
    return { status: 200, body: { elements, paging: { count, start: 0 } } };
  }

  private bearer(req: IncomingMessage): Token | null {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const held = token ? this.tokens.get(token) : undefined;
    return held && held.expiresAt > Date.now() ? held : null;
  }

  private reply(
    res: ServerResponse,
    call: RecordedLinkedInCall,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    call.status = status;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(status === 201 && body && Object.keys(body).length === 0 ? '' : JSON.stringify(body));
  }
}

/** Reads little text: `\X` is X; an unescaped reserved character ends what LinkedIn shows. */
export function readLittleText(commentary: string): string {
  let shown = '';
  for (let i = 0; i < commentary.length; i++) {
    const char = commentary[i];
    if (char === '\\' && i + 1 < commentary.length) shown += commentary[++i];
    else if ('|{}@[]()<>#*_~'.includes(char)) return shown;
    else shown += char;
  }
  return shown;
}

function routeOf(method: string, path: string, query: URLSearchParams): LinkedInRoute | null {
  if (method === 'GET' && path === '/oauth/v2/authorization') return 'authorize';
  if (method === 'POST' && path === '/oauth/v2/accessToken') return 'token';
  if (method === 'GET' && path === '/v2/userinfo') return 'userinfo';
  if (method === 'GET' && path === '/rest/organizationAcls') return 'organization_acls';
  if (method === 'GET' && /^\/rest\/organizations\/\d+$/.test(path)) return 'organization';
  if (method === 'POST' && path === '/rest/images' && query.get('action') === 'initializeUpload')
    return 'initialize_upload';
  if (method === 'PUT' && path.startsWith('/dms-uploader/')) return 'upload';
  if (method === 'POST' && path === '/rest/posts') return 'create_post';
  if (method === 'GET' && path === '/rest/posts' && query.get('q') === 'author')
    return 'author_posts';
  if (/^\/rest\/socialActions\/[^/]+\/comments$/.test(path))
    return method === 'POST' ? 'comment' : method === 'GET' ? 'comments' : null;
  return null;
}

function parseBody(req: IncomingMessage, raw: Buffer): Record<string, unknown> {
  if (raw.length === 0) return {};
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  if (!type.startsWith('application/json')) return {};
  try {
    return JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  } catch {
    return { _unreadable: true };
  }
}

import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { AnswerDelay } from './answer-delay';
import {
  downloadMedia,
  invalidToken,
  processingFor,
  oauthError,
  readBody,
  routeOf,
  type Container,
  type Profile,
  type PublishedPost,
  type RecordedThreadsCall,
  type ThreadsRoute,
  type ThreadsScript,
} from './meta-graph-protocol';

export type { Container, Profile, PublishedPost, RecordedThreadsCall, ThreadsRoute, ThreadsScript };

interface Token {
  profile: Profile;
  kind: 'short' | 'long';
  issuedAt: number;
  revoked: boolean;
}

const DAY_MS = 24 * 3_600_000;
const LONG_LIVED_SECONDS = 5_184_000;

/**
 * Threads as Meta documents it: the Authorization Window (the test plays the user), the code
 * exchange, long-lived tokens and their renewal (only once a day old), the profile, media
 * containers processed in the background and polled, `threads_publish`, permalinks, the profile's
 * publishing quota, and Graph errors. Like Meta it fetches every media URL it is given.
 */
export class ThreadsServer {
  readonly calls: RecordedThreadsCall[] = [];
  readonly posts: PublishedPost[] = [];
  readonly containers = new Map<string, Container>();
  /** Every media URL fetched, with the answer's status. */
  readonly fetched: { url: string; status: number }[] = [];
  /** Publications refused because their container was not FINISHED. */
  readonly unfinishedPublishes: string[] = [];
  /** Posts the profile made outside this app, counted in its quota. */
  usedElsewhere = 0;
  /** Status reads a video container stays IN_PROGRESS. */
  videoReads = 2;
  /** Processing of the next videos fails with this message. */
  videoError: string | null = null;
  /** Every container processes this long, a random time in the range (the benchmark's). */
  processing: { minMs: number; maxMs: number } | null = null;
  /** Publications refused because the profile's 250 posts in 24 hours were spent. */
  overQuota = 0;
  private readonly delay = new AnswerDelay();
  private readonly tokens = new Map<string, Token>();
  private readonly codes = new Map<string, { profile: Profile; redirectUri: string }>();
  private readonly scripts = new Map<ThreadsRoute, ThreadsScript[]>();
  private user: Profile | null = null;
  private server?: Server;
  private ids = 17_890_000_000_000;

  constructor(readonly app: { id: string; secret: string; redirectUri: string }) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Answers every served call after `ms` ± `jitterMs`. */
  answerAfter(ms: number, jitterMs = 0): this {
    this.delay.set(ms, jitterMs);
    return this;
  }

  /** The profile signed in at the next consent; null: the user presses "Cancel". */
  signIn(profile: Profile | null): void {
    this.user = profile;
  }

  /** A long-lived token for `profile`, as if Meta had issued it `ageMs` ago. */
  issue(profile: Profile, ageMs = 0): string {
    const token = `THAA${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, { profile, kind: 'long', issuedAt: Date.now() - ageMs, revoked: false });
    return token;
  }

  /** The profile's tokens age by `ms` (Meta's clock moves). */
  age(profile: Profile, ms: number): void {
    for (const token of this.tokens.values())
      if (token.profile.id === profile.id) token.issuedAt -= ms;
  }

  /** Every token of the profile dies (the user removed the app, changed password). */
  revoke(profile: Profile): void {
    for (const token of this.tokens.values())
      if (token.profile.id === profile.id) token.revoked = true;
  }

  /** Processing of the container ends now. */
  finish(containerId: string): void {
    const container = this.containers.get(containerId)!;
    if (container.status === 'IN_PROGRESS') container.status = 'FINISHED';
  }

  /** The next calls of `route` (one script per call) answer as scripted. */
  script(route: ThreadsRoute, ...scripts: ThreadsScript[]): void {
    this.scripts.set(route, [...(this.scripts.get(route) ?? []), ...scripts]);
  }

  callsOf(route: ThreadsRoute): RecordedThreadsCall[] {
    return this.calls.filter((call) => call.route === route);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const body = await readBody(req);
    const params = {
      ...Object.fromEntries(url.searchParams),
      ...Object.fromEntries(new URLSearchParams(body)),
    };
    const route = routeOf(req.method ?? 'GET', url.pathname, params, this);
    const call: RecordedThreadsCall = {
      route,
      method: req.method ?? 'GET',
      path: url.pathname,
      params,
      status: null,
      at: Date.now(),
    };
    this.calls.push(call);
    const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      call.status = status;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(json));
    };
    const script = route === 'unknown' ? undefined : this.scripts.get(route)?.shift();
    if (script?.status) return answer(script.status, { error: script.error }, script.headers);
    const served = await this.serve(route, url, params);
    await this.delay.wait();
    if (script?.afterServing === 'drop') {
      res.socket?.destroy();
      return;
    }
    if (served.redirect) {
      call.status = 302;
      res.writeHead(302, { location: served.redirect });
      return void res.end();
    }
    answer(served.status, served.body, served.headers);
  }

  private async serve(
    route: ThreadsRoute | 'unknown',
    url: URL,
    p: Record<string, string>,
  ): Promise<{
    status: number;
    body?: unknown;
    headers?: Record<string, string>;
    redirect?: string;
  }> {
    const fail = (status: number, error: Record<string, unknown>) => ({ status, body: { error } });
    if (route === 'authorize') return this.authorize(p);
    if (route === 'token') return this.exchange(p);
    if (route === 'long_lived_token') {
      const held = this.tokens.get(p.access_token);
      if (p.client_secret !== this.app.secret)
        return fail(400, oauthError('Error validating client secret.', 1));
      if (!held || held.revoked || held.kind !== 'short') return fail(400, invalidToken());
      return { status: 200, body: this.longLived(held.profile) };
    }
    if (route === 'refresh_token') {
      const held = this.tokens.get(p.access_token);
      if (!held || held.revoked || held.kind !== 'long') return fail(400, invalidToken());
      if (Date.now() - held.issuedAt < DAY_MS)
        return fail(
          400,
          oauthError('The access token must be at least 24 hours old to be refreshed.', 190),
        );
      return { status: 200, body: this.longLived(held.profile) };
    }
    const token = this.tokens.get(p.access_token);
    if (!token || token.revoked || Date.now() - token.issuedAt > LONG_LIVED_SECONDS * 1000)
      return fail(400, invalidToken());
    const profile = token.profile;
    const [, , first] = url.pathname.split('/');
    if (route === 'me')
      return { status: 200, body: { id: profile.id, username: profile.username } };
    if (
      first !== 'me' &&
      first !== profile.id &&
      ['create_container', 'publish', 'publishing_limit', 'recent_posts'].includes(route)
    )
      return fail(
        400,
        oauthError('(#10) The user has not authorized the application to act for this profile', 10),
      );
    switch (route) {
      case 'create_container':
        return this.create(profile, p);
      case 'container': {
        const container = this.containers.get(first)!;
        if (
          container.status === 'IN_PROGRESS' &&
          --container.readsLeft <= 0 &&
          Date.now() >= (container.readyAt ?? 0)
        )
          container.status = 'FINISHED';
        return {
          status: 200,
          body: {
            id: container.id,
            status: container.status,
            ...(container.errorMessage ? { error_message: container.errorMessage } : {}),
          },
        };
      }
      case 'publish':
        return this.publish(profile, p.creation_id);
      case 'media': {
        const post = this.posts.find((made) => made.id === first)!;
        return { status: 200, body: { id: post.id, permalink: post.permalink } };
      }
      case 'publishing_limit':
        return {
          status: 200,
          body: {
            data: [
              {
                quota_usage: this.usage(profile),
                config: { quota_total: 250, quota_duration: 86400 },
              },
            ],
          },
        };
      case 'recent_posts': {
        const own = this.posts.filter((post) => post.userId === profile.id).reverse();
        return {
          status: 200,
          body: {
            data: own.slice(0, 10).map((post) => ({
              id: post.id,
              permalink: post.permalink,
              text: post.container.params.text ?? '',
              timestamp: new Date(post.at).toISOString(),
            })),
          },
        };
      }
      default:
        return fail(400, oauthError('Unsupported request', 100));
    }
  }

  usage(profile: Profile): number {
    return (
      this.usedElsewhere +
      this.posts.filter((post) => post.userId === profile.id && post.at > Date.now() - DAY_MS)
        .length
    );
  }

  private authorize(p: Record<string, string>) {
    if (
      p.client_id !== this.app.id ||
      p.redirect_uri !== this.app.redirectUri ||
      p.response_type !== 'code'
    )
      return { status: 400, body: { error: oauthError('Invalid platform app', 100) } };
    const back = new URL(p.redirect_uri);
    if (p.state) back.searchParams.set('state', p.state);
    const scopes = (p.scope ?? '').split(/[,\s]+/);
    if (!this.user || !scopes.includes('threads_basic')) {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_reason', 'user_denied');
      back.searchParams.set('error_description', 'Permissions error');
      return { status: 302, redirect: `${back.toString()}#_` };
    }
    const code = `AQ${randomBytes(32).toString('base64url')}`;
    this.codes.set(code, { profile: this.user, redirectUri: p.redirect_uri });
    back.searchParams.set('code', code);
    return { status: 302, redirect: `${back.toString()}#_` };
  }

  private exchange(p: Record<string, string>) {
    if (p.client_id !== this.app.id || p.client_secret !== this.app.secret)
      return { status: 400, body: { error: oauthError('Error validating client secret.', 1) } };
    const issued = this.codes.get(p.code);
    if (p.grant_type !== 'authorization_code' || !issued || issued.redirectUri !== p.redirect_uri)
      return { status: 400, body: { error: oauthError('Invalid verification code format.', 100) } };
    this.codes.delete(p.code);
    const token = `THQVJ${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, {
      profile: issued.profile,
      kind: 'short',
      issuedAt: Date.now(),
      revoked: false,
    });
    return { status: 200, body: { access_token: token, user_id: Number(issued.profile.id) } };
  }

  private longLived(profile: Profile) {
    return {
      access_token: this.issue(profile),
      token_type: 'bearer',
      expires_in: LONG_LIVED_SECONDS,
    };
  }

  private async create(profile: Profile, p: Record<string, string>) {
    const type = p.media_type;
    const links = new Set((p.text ?? '').match(/\b(?:https?:\/\/|www\.)\S+/g) ?? []);
    if (links.size > 5)
      return { status: 400, body: { error: oauthError('THREADS_API__LINK_LIMIT_EXCEEDED', 100) } };
    const container: Container = {
      id: String(this.ids++),
      userId: profile.id,
      params: p,
      status: 'FINISHED',
      readsLeft: 0,
    };
    if (type === 'IMAGE' || type === 'VIDEO') {
      const fetched = await this.fetch(type === 'IMAGE' ? p.image_url : p.video_url);
      if (!fetched && type === 'IMAGE')
        return {
          status: 400,
          body: {
            error: oauthError(
              'Media download has failed.: The media could not be fetched from the URI provided.',
              100,
              { error_subcode: 2207052 },
            ),
          },
        };
      if (!fetched)
        Object.assign(container, { status: 'ERROR', errorMessage: 'FAILED_DOWNLOADING_VIDEO' });
      else if (type === 'VIDEO' && this.videoError)
        Object.assign(container, { status: 'ERROR', errorMessage: this.videoError });
      else if (type === 'VIDEO')
        Object.assign(container, { status: 'IN_PROGRESS', readsLeft: this.videoReads });
    } else if (type === 'CAROUSEL') {
      const children = (p.children ?? '').split(',').map((id) => this.containers.get(id));
      if (
        children.length < 2 ||
        children.length > 20 ||
        children.some((c) => !c || c.params.is_carousel_item !== 'true' || c.status !== 'FINISHED')
      )
        return { status: 400, body: { error: oauthError('Invalid parameter: children', 100) } };
    } else if (type !== 'TEXT' || !p.text) {
      return { status: 400, body: { error: oauthError('Invalid parameter: media_type', 100) } };
    }
    if (this.processing && container.status !== 'ERROR')
      Object.assign(container, processingFor(this.processing));
    this.containers.set(container.id, container);
    return { status: 200, body: { id: container.id } };
  }

  private publish(profile: Profile, creationId: string) {
    const container = this.containers.get(creationId);
    if (!container || container.userId !== profile.id)
      return { status: 400, body: { error: oauthError('Invalid parameter: creation_id', 100) } };
    if (this.usage(profile) >= 250) {
      this.overQuota++;
      return {
        status: 400,
        body: {
          error: oauthError('The profile has reached its publishing limit', 4, {
            error_subcode: 2207042,
          }),
        },
      };
    }
    if (container.status !== 'FINISHED') {
      this.unfinishedPublishes.push(creationId);
      return {
        status: 400,
        body: {
          error: oauthError(
            'The media is not ready for publishing, please wait for a moment',
            9007,
            { error_subcode: 2207027 },
          ),
        },
      };
    }
    container.status = 'PUBLISHED';
    const id = String(this.ids++);
    const permalink = `https://www.threads.net/@${profile.username}/post/${randomBytes(6).toString('base64url')}`;
    this.posts.push({ id, userId: profile.id, container, permalink, at: Date.now() });
    return { status: 200, body: { id } };
  }

  /** As Meta does: GET the URL, which must answer 2xx with a media type. */
  private async fetch(url: string | undefined): Promise<boolean> {
    if (!url) return false;
    const { status, type } = await downloadMedia(url);
    this.fetched.push({ url, status });
    return status === 200 && /^(image|video)\//.test(type);
  }
}

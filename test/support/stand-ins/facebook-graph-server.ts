import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { AnswerDelay } from './answer-delay';
import {
  downloadMedia,
  invalidToken,
  oauthError,
  processingFor,
  readBody,
} from './meta-graph-protocol';

/** The calls the stand-in answers, by the name a script or a recorded call uses. */
export type GraphRoute =
  | 'dialog'
  | 'token'
  | 'long_lived_token'
  | 'me'
  | 'pages'
  | 'feed'
  | 'photo'
  | 'video'
  | 'comment'
  | 'comments'
  | 'create_container'
  | 'container'
  | 'publish'
  | 'media'
  | 'publishing_limit'
  | 'recent_media';

export interface RecordedGraphCall {
  route: GraphRoute | 'unknown';
  method: string;
  path: string;
  /** Query and form parameters together; `access_token` among them. */
  params: Record<string, string>;
  status: number | null;
  /** When it arrived (epoch ms). */
  at: number;
  /** Answered with one of Meta's rate-limit codes. */
  limited: boolean;
}

export interface GraphScript {
  status?: number;
  /** Meta's error object (`{message, type, code, error_subcode}`). */
  error?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Serve the call, then close the connection unanswered (the answer lost). */
  afterServing?: 'drop';
  /** Take the call and never answer. */
  hang?: boolean;
  /** Serve the call first, then answer with `status` and `error` (a limit after the work). */
  served?: boolean;
}

export interface FacebookUser {
  id: string;
  name: string;
}

export interface FacebookPageRecord {
  id: string;
  name: string;
  /** The Instagram professional account linked to the page. */
  instagram?: { id: string; username: string };
}

/** A page post, photo or video as Facebook holds it. */
export interface PagePost {
  id: string;
  pageId: string;
  kind: 'status' | 'photo' | 'video';
  message: string;
  link?: string;
  /** The photos attached to a feed post (`attached_media`). */
  attached: string[];
  published: boolean;
  params: Record<string, string>;
  /** When it was made (epoch ms). */
  at: number;
}

export interface Container {
  id: string;
  igUserId: string;
  params: Record<string, string>;
  status: 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';
  errorMessage?: string;
  readsLeft: number;
  /** Processing ends at this moment (epoch ms), whatever the reads. */
  readyAt: number;
  /** When it began to process, if it had to (epoch ms). */
  processingSince?: number;
}

export interface InstagramMedia {
  id: string;
  igUserId: string;
  container: Container;
  permalink: string;
  at: number;
}

export interface Comment {
  id: string;
  objectId: string;
  message: string;
}

interface Token {
  user: FacebookUser;
  kind: 'short' | 'long' | 'page';
  pageId?: string;
  revoked: boolean;
}

const VERSIONED = /^\/v\d+\.\d+(\/.*)$/;
const LONG_LIVED_SECONDS = 5_184_000;
const DAY_MS = 24 * 3_600_000;

/**
 * graph.facebook.com as Meta documents it for Facebook Login, Pages and Instagram: the login
 * dialog (the test plays the user and picks the pages), the code and long-lived token exchanges,
 * the user's pages with page tokens and linked Instagram accounts, page feed posts, photos
 * (published or not, attached to a feed post), videos, comments; Instagram containers processed
 * in the background and polled, `media_publish`, permalinks, the account's publishing quota; and
 * Graph errors. Like Meta it fetches every media URL it is given.
 */
export class FacebookGraphServer {
  readonly calls: RecordedGraphCall[] = [];
  readonly posts: PagePost[] = [];
  readonly photos: PagePost[] = [];
  readonly media: InstagramMedia[] = [];
  readonly comments: Comment[] = [];
  readonly containers = new Map<string, Container>();
  readonly fetched: { url: string; status: number; type: string }[] = [];
  /** Publications refused because their container was not FINISHED. */
  readonly unfinishedPublishes: string[] = [];
  /** Status reads a video container stays IN_PROGRESS. */
  videoReads = 2;
  /** Processing of the next videos fails with this status. */
  videoError: string | null = null;
  /** Posts an Instagram account may publish through the API in 24 hours. */
  quotaTotal = 100;
  /** Posts each account (by Instagram user id) published through other apps, counted in its quota. */
  readonly usedElsewhere = new Map<string, number>();
  /** The next media downloads fail (Meta's fetcher could not reach the URL this time). */
  fetchFailures = 0;
  /** Every container (image or video) processes this long, a random time in the range (the benchmark's). */
  processing: { minMs: number; maxMs: number } | null = null;
  /** Meta's page limit as the benchmark enforces it: calls per page in any hour, else none. */
  pageCallsPerHour: number | null = null;
  /** Calls answered with a rate limit (code 32). */
  limited = 0;
  private readonly pageCalls = new Map<string, number[]>();
  private readonly delay = new AnswerDelay();
  /** Answers to every call, with their `X-Business-Use-Case-Usage` header where set. */
  usageHeader: string | null = null;
  private readonly users = new Map<string, { user: FacebookUser; pages: FacebookPageRecord[] }>();
  private readonly tokens = new Map<string, Token>();
  private readonly codes = new Map<string, { user: FacebookUser; redirectUri: string }>();
  private readonly scripts = new Map<GraphRoute, GraphScript[]>();
  private signedIn: { user: FacebookUser; pages: FacebookPageRecord[] } | null = null;
  private readonly hanging = new Set<ServerResponse>();
  private server?: Server;
  private ids = 122_100_000_000_000;

  constructor(readonly app: { id: string; secret: string; redirectUris: string[] }) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** FACEBOOK_GRAPH_URL and FACEBOOK_DIALOG_URL: the root with Meta's version. */
  get versioned(): string {
    return `${this.url}/v23.0`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Answers every served call after `ms` ± `jitterMs`. */
  answerAfter(ms: number, jitterMs = 0): this {
    this.delay.set(ms, jitterMs);
    return this;
  }

  /** The user at the next login dialog, and the pages they let the app use; null: "Cancel". */
  signIn(user: FacebookUser | null, pages: FacebookPageRecord[] = []): void {
    this.signedIn = user ? { user, pages } : null;
    if (user) this.users.set(user.id, { user, pages });
  }

  /** Every token of the user dies (they removed the app, changed their password). */
  revoke(user: FacebookUser): void {
    for (const token of this.tokens.values()) if (token.user.id === user.id) token.revoked = true;
  }

  /** The next calls of `route` (one script per call) answer as scripted. */
  script(route: GraphRoute, ...scripts: GraphScript[]): void {
    this.scripts.set(route, [...(this.scripts.get(route) ?? []), ...scripts]);
  }

  callsOf(route: GraphRoute): RecordedGraphCall[] {
    return this.calls.filter((call) => call.route === route);
  }

  /** The account's posts published in the last 24 hours, with those made elsewhere. */
  usage(igUserId: string): number {
    const since = Date.now() - DAY_MS;
    return (
      (this.usedElsewhere.get(igUserId) ?? 0) +
      this.media.filter((made) => made.igUserId === igUserId && made.at > since).length
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const body = await readBody(req);
    const params = {
      ...Object.fromEntries(url.searchParams),
      ...Object.fromEntries(new URLSearchParams(body)),
    };
    const path = VERSIONED.exec(url.pathname)?.[1] ?? url.pathname;
    const method = req.method ?? 'GET';
    const route = this.routeOf(method, path, params);
    const call: RecordedGraphCall = {
      route,
      method,
      path,
      params,
      status: null,
      at: Date.now(),
      limited: false,
    };
    this.calls.push(call);
    const usage: Record<string, string> = this.usageHeader
      ? { 'x-business-use-case-usage': this.usageHeader }
      : {};
    const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      call.status = status;
      const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
      call.limited = status >= 400 && [4, 17, 32, 613].includes(Number(code));
      res.writeHead(status, { 'content-type': 'application/json', ...usage, ...headers });
      res.end(JSON.stringify(json));
    };
    const script = route === 'unknown' ? undefined : this.scripts.get(route)?.shift();
    if (script?.hang) {
      this.hanging.add(res);
      return;
    }
    if (script?.status && !script.served)
      return answer(script.status, { error: script.error }, script.headers);
    const limited = this.overPageLimit(route, path);
    if (limited) {
      this.limited++;
      return answer(400, { error: oauthError('(#32) Page request limit reached', 32) }, limited);
    }
    const served = await this.serve(route, path, params);
    await this.delay.wait();
    if (script?.status) return answer(script.status, { error: script.error }, script.headers);
    if (script?.afterServing === 'drop') {
      res.socket?.destroy();
      return;
    }
    if (served.redirect) {
      call.status = 302;
      res.writeHead(302, { location: served.redirect });
      return void res.end();
    }
    answer(served.status, served.body);
  }

  /** Every call on a page's edges counts against its hour, as Meta's page limit counts them. */
  private overPageLimit(
    route: GraphRoute | 'unknown',
    path: string,
  ): Record<string, string> | null {
    if (this.pageCallsPerHour === null || !['feed', 'photo', 'video'].includes(route)) return null;
    const [, page] = path.split('/');
    const now = Date.now();
    const calls = (this.pageCalls.get(page) ?? []).filter((at) => at > now - 3_600_000);
    this.pageCalls.set(page, calls);
    if (calls.length < this.pageCallsPerHour) {
      calls.push(now);
      return null;
    }
    const minutes = Math.ceil((calls[0] + 3_600_000 - now) / 60_000);
    return {
      'x-business-use-case-usage': JSON.stringify({
        [page]: [{ type: 'pages', call_count: 100, estimated_time_to_regain_access: minutes }],
      }),
    };
  }

  private routeOf(method: string, path: string, p: Record<string, string>): GraphRoute | 'unknown' {
    const [, node, edge] = path.split('/');
    if (node === 'dialog' && edge === 'oauth') return 'dialog';
    if (node === 'oauth' && edge === 'access_token')
      return p.grant_type === 'fb_exchange_token' ? 'long_lived_token' : 'token';
    if (node === 'me' && !edge) return 'me';
    if (node === 'me' && edge === 'accounts') return 'pages';
    const post = method === 'POST';
    if (edge === 'feed' && post) return 'feed';
    if (edge === 'photos' && post) return 'photo';
    if (edge === 'videos' && post) return 'video';
    if (edge === 'comments') return post ? 'comment' : 'comments';
    if (edge === 'media') return post ? 'create_container' : 'recent_media';
    if (edge === 'media_publish' && post) return 'publish';
    if (edge === 'content_publishing_limit') return 'publishing_limit';
    if (!edge && this.containers.has(node)) return 'container';
    if (!edge && this.media.some((made) => made.id === node)) return 'media';
    return 'unknown';
  }

  private async serve(
    route: GraphRoute | 'unknown',
    path: string,
    p: Record<string, string>,
  ): Promise<{ status: number; body?: unknown; redirect?: string }> {
    const fail = (status: number, error: Record<string, unknown>) => ({ status, body: { error } });
    if (route === 'dialog') return this.dialog(p);
    if (route === 'token') return this.exchange(p);
    if (route === 'long_lived_token') {
      const held = this.tokens.get(p.fb_exchange_token);
      if (p.client_id !== this.app.id || p.client_secret !== this.app.secret)
        return fail(400, oauthError('Error validating client secret.', 1));
      if (!held || held.revoked || held.kind !== 'short') return fail(400, invalidToken());
      return { status: 200, body: this.longLived(held.user) };
    }
    const token = this.tokens.get(p.access_token);
    if (!token || token.revoked) return fail(400, invalidToken());
    const [, node] = path.split('/');
    const own = this.users.get(token.user.id)!;
    if (route === 'me') return { status: 200, body: { id: token.user.id, name: token.user.name } };
    if (route === 'pages') {
      if (token.kind !== 'long' && token.kind !== 'short') return fail(400, invalidToken());
      const instagram = (p.fields ?? '').includes('instagram_business_account');
      return {
        status: 200,
        body: {
          data: own.pages.map((page) => ({
            id: page.id,
            name: page.name,
            link: `https://www.facebook.com/${page.id}`,
            access_token: this.pageToken(token.user, page.id),
            ...(instagram && page.instagram
              ? { instagram_business_account: { ...page.instagram } }
              : {}),
          })),
          paging: { cursors: { before: 'MAZDZD', after: 'MjQZD' } },
        },
      };
    }
    // Beyond the user's own reads, a page token acts for its page and the page's Instagram account.
    const page = own.pages.find((held) => held.id === token.pageId);
    const actsFor = (id: string) =>
      token.kind === 'page' && (page?.id === id || page?.instagram?.id === id);
    const denied = () =>
      fail(
        403,
        oauthError(
          '(#200) The user has not authorized the application to act for this object',
          200,
        ),
      );
    switch (route) {
      case 'feed':
      case 'photo':
      case 'video':
        if (!actsFor(node) || page?.id !== node) return denied();
        return this.pagePost(route, node, p);
      case 'comment':
      case 'comments':
        return this.comment(route, node, p, actsFor);
      case 'create_container':
        if (!actsFor(node)) return denied();
        return this.create(node, p);
      case 'container': {
        const container = this.containers.get(node)!;
        if (!actsFor(container.igUserId)) return denied();
        if (
          container.status === 'IN_PROGRESS' &&
          --container.readsLeft <= 0 &&
          Date.now() >= container.readyAt
        )
          container.status = 'FINISHED';
        return {
          status: 200,
          body: {
            id: container.id,
            status_code: container.status,
            ...(container.errorMessage ? { status: `Error: ${container.errorMessage}` } : {}),
          },
        };
      }
      case 'publish':
        if (!actsFor(node)) return denied();
        return this.publish(node, p.creation_id);
      case 'media': {
        const made = this.media.find((held) => held.id === node)!;
        if (!actsFor(made.igUserId)) return denied();
        return { status: 200, body: { id: made.id, permalink: made.permalink } };
      }
      case 'publishing_limit':
        if (!actsFor(node)) return denied();
        return {
          status: 200,
          body: {
            data: [
              {
                quota_usage: this.usage(node),
                config: { quota_total: this.quotaTotal, quota_duration: 86400 },
              },
            ],
          },
        };
      case 'recent_media': {
        if (!actsFor(node)) return denied();
        const made = this.media.filter((held) => held.igUserId === node).reverse();
        return {
          status: 200,
          body: {
            data: made.slice(0, Number(p.limit ?? 25)).map((held) => ({
              id: held.id,
              permalink: held.permalink,
              caption: held.container.params.caption,
              timestamp: new Date(held.at).toISOString().replace(/\.\d+Z$/, '+0000'),
            })),
          },
        };
      }
      default:
        return fail(
          400,
          oauthError(`Unsupported ${route === 'unknown' ? 'request' : route} request`, 100, {
            error_subcode: 33,
          }),
        );
    }
  }

  private dialog(p: Record<string, string>) {
    if (p.client_id !== this.app.id || !this.app.redirectUris.includes(p.redirect_uri))
      return { status: 400, body: { error: oauthError("Can't load URL", 191) } };
    const back = new URL(p.redirect_uri);
    if (p.state) back.searchParams.set('state', p.state);
    if (!this.signedIn) {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_code', '200');
      back.searchParams.set('error_description', 'Permissions error');
      back.searchParams.set('error_reason', 'user_denied');
      return { status: 302, redirect: `${back.toString()}#_=_` };
    }
    const code = `AQ${randomBytes(32).toString('base64url')}`;
    this.codes.set(code, { user: this.signedIn.user, redirectUri: p.redirect_uri });
    back.searchParams.set('code', code);
    return { status: 302, redirect: `${back.toString()}#_=_` };
  }

  private exchange(p: Record<string, string>) {
    if (p.client_id !== this.app.id || p.client_secret !== this.app.secret)
      return { status: 400, body: { error: oauthError('Error validating client secret.', 1) } };
    const issued = this.codes.get(p.code);
    if (!issued || issued.redirectUri !== p.redirect_uri)
      return {
        status: 400,
        body: {
          error: oauthError('Invalid verification code format.', 100, { error_subcode: 36007 }),
        },
      };
    this.codes.delete(p.code);
    const token = `EAAS${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, { user: issued.user, kind: 'short', revoked: false });
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: 5183 } };
  }

  private longLived(user: FacebookUser) {
    const token = `EAAL${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, { user, kind: 'long', revoked: false });
    return { access_token: token, token_type: 'bearer', expires_in: LONG_LIVED_SECONDS };
  }

  private pageToken(user: FacebookUser, pageId: string): string {
    const token = `EAAP${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, { user, kind: 'page', pageId, revoked: false });
    return token;
  }

  private async pagePost(
    route: 'feed' | 'photo' | 'video',
    pageId: string,
    p: Record<string, string>,
  ) {
    const id = () => String(this.ids++);
    if (route === 'feed') {
      let attached: string[] = [];
      if (p.attached_media) {
        try {
          attached = (JSON.parse(p.attached_media) as { media_fbid: string }[]).map(
            (m) => m.media_fbid,
          );
        } catch {
          return { status: 400, body: { error: oauthError('(#100) Invalid attached_media', 100) } };
        }
        const unknown = attached.find(
          (photo) =>
            !this.photos.some(
              (held) => held.id === photo && !held.published && held.pageId === pageId,
            ),
        );
        if (unknown)
          return {
            status: 400,
            body: { error: oauthError(`(#100) Invalid media_fbid ${unknown}`, 100) },
          };
      }
      if (!p.message && !p.link && attached.length === 0)
        return { status: 400, body: { error: oauthError('(#100) The post is empty', 100) } };
      const post: PagePost = {
        id: `${pageId}_${id()}`,
        pageId,
        kind: 'status',
        message: p.message ?? '',
        link: p.link,
        attached,
        published: true,
        params: p,
        at: Date.now(),
      };
      this.posts.push(post);
      return { status: 200, body: { id: post.id } };
    }
    const url = route === 'photo' ? p.url : p.file_url;
    const fetched = await this.fetch(url);
    if (!fetched || !fetched.type.startsWith(route === 'photo' ? 'image/' : 'video/'))
      return {
        status: 400,
        body: {
          error: oauthError(
            route === 'photo'
              ? '(#324) Missing or invalid image file'
              : '(#351) Error loading the video file',
            route === 'photo' ? 324 : 351,
          ),
        },
      };
    const published = p.published !== 'false';
    const made: PagePost = {
      id: id(),
      pageId,
      kind: route,
      message: (route === 'photo' ? (p.caption ?? p.message) : p.description) ?? '',
      attached: [],
      published,
      params: p,
      at: Date.now(),
    };
    if (route === 'photo') this.photos.push(made);
    if (published) {
      const post = { ...made, id: route === 'photo' ? `${pageId}_${id()}` : made.id };
      this.posts.push(post);
      return {
        status: 200,
        body: route === 'photo' ? { id: made.id, post_id: post.id } : { id: made.id },
      };
    }
    return { status: 200, body: { id: made.id } };
  }

  private comment(
    route: 'comment' | 'comments',
    objectId: string,
    p: Record<string, string>,
    actsFor: (id: string) => boolean,
  ) {
    const post = this.posts.find((held) => held.id === objectId);
    const media = this.media.find((held) => held.id === objectId);
    const owner = post?.pageId ?? media?.igUserId;
    if (!owner)
      return {
        status: 400,
        body: {
          error: oauthError(`(#100) Object with ID '${objectId}' does not exist`, 100, {
            error_subcode: 33,
          }),
        },
      };
    if (!actsFor(owner))
      return { status: 403, body: { error: oauthError('(#200) Permissions error', 200) } };
    if (route === 'comments')
      return {
        status: 200,
        body: {
          data: this.comments
            .filter((held) => held.objectId === objectId)
            .reverse()
            .map((held) =>
              media ? { id: held.id, text: held.message } : { id: held.id, message: held.message },
            ),
        },
      };
    if (!p.message)
      return { status: 400, body: { error: oauthError('(#100) The comment is empty', 100) } };
    const comment = {
      id: media ? String(this.ids++) : `${objectId.split('_').pop()}_${this.ids++}`,
      objectId,
      message: p.message,
    };
    this.comments.push(comment);
    return { status: 200, body: { id: comment.id } };
  }

  private async create(igUserId: string, p: Record<string, string>) {
    const invalid = (message: string, subcode?: number) => ({
      status: 400,
      body: { error: oauthError(message, 100, subcode ? { error_subcode: subcode } : {}) },
    });
    const container: Container = {
      id: String(this.ids++),
      igUserId,
      params: p,
      status: 'FINISHED',
      readsLeft: 0,
      readyAt: 0,
    };
    const video = p.media_type === 'REELS' || p.media_type === 'VIDEO';
    if (p.media_type === 'CAROUSEL') {
      const children = (p.children ?? '').split(',').map((id) => this.containers.get(id));
      if (
        children.length < 2 ||
        children.length > 10 ||
        children.some((c) => !c || c.params.is_carousel_item !== 'true' || c.status !== 'FINISHED')
      )
        return invalid('Invalid parameter: children', 2207001);
    } else if (video) {
      if (p.media_type === 'VIDEO' && p.is_carousel_item !== 'true')
        return invalid('The VIDEO media type is only for carousel items; use REELS', 2207001);
      const fetched = await this.fetch(p.video_url);
      if (!fetched || !fetched.type.startsWith('video/'))
        Object.assign(container, { status: 'ERROR', errorMessage: 'Media download has failed' });
      else if (this.videoError)
        Object.assign(container, { status: 'ERROR', errorMessage: this.videoError });
      else
        Object.assign(container, {
          status: 'IN_PROGRESS',
          readsLeft: this.videoReads,
          readyAt: 0,
        });
    } else if (p.image_url) {
      const fetched = await this.fetch(p.image_url);
      if (!fetched)
        return invalid(
          'Media download has failed.: The media could not be fetched from the URI provided.',
          2207052,
        );
      if (fetched.type !== 'image/jpeg')
        return invalid(
          'The image format is not supported. Only JPEG images are supported.',
          2207083,
        );
    } else {
      return invalid('Invalid parameter: image_url or video_url is required', 2207001);
    }
    if ((p.caption ?? '').length > 2200)
      return invalid('The caption is longer than 2,200 characters', 2207010);
    if (((p.caption ?? '').match(/#[\p{L}\p{N}_]+/gu) ?? []).length > 30)
      return invalid('The caption contains more than 30 hashtags', 2207009);
    if (this.processing && container.status !== 'ERROR')
      Object.assign(container, processingFor(this.processing));
    this.containers.set(container.id, container);
    return { status: 200, body: { id: container.id } };
  }

  private publish(igUserId: string, creationId: string) {
    const container = this.containers.get(creationId);
    if (
      !container ||
      container.igUserId !== igUserId ||
      container.params.is_carousel_item === 'true'
    )
      return { status: 400, body: { error: oauthError('Invalid parameter: creation_id', 100) } };
    if (this.usage(igUserId) >= this.quotaTotal)
      return {
        status: 400,
        body: {
          error: oauthError('Application request limit reached', 4, {
            error_subcode: 2207042,
            is_transient: false,
          }),
        },
      };
    if (container.status === 'PUBLISHED')
      return {
        status: 400,
        body: {
          error: oauthError('The media has already been published', 100, {
            error_subcode: 2207006,
          }),
        },
      };
    if (container.status !== 'FINISHED') {
      this.unfinishedPublishes.push(creationId);
      return {
        status: 400,
        body: {
          error: oauthError('Media ID is not available', 9007, { error_subcode: 2207027 }),
        },
      };
    }
    container.status = 'PUBLISHED';
    const made: InstagramMedia = {
      id: String(this.ids++),
      igUserId,
      container,
      permalink: `https://www.instagram.com/p/${randomBytes(8).toString('base64url')}/`,
      at: Date.now(),
    };
    this.media.push(made);
    return { status: 200, body: { id: made.id } };
  }

  /** As Meta does: GET the URL, which must answer 200 with a media type. */
  private async fetch(url: string | undefined): Promise<{ type: string } | null> {
    if (!url) return null;
    let got = { status: 0, type: '' };
    if (this.fetchFailures > 0) this.fetchFailures--;
    else got = await downloadMedia(url);
    this.fetched.push({ url, ...got });
    return got.status === 200 ? { type: got.type } : null;
  }
}

import { AppError, type ErrorCode } from '../../../http/errors/error-codes';
import type { AppConfig } from '../../../infrastructure/config/config';
import type { OAuthFinish, OAuthFlow, OAuthStart, TokenTerms } from '../oauth-flow';
import type { ConnectedAccount, PlatformIdentity } from '../platform';
import type { PlatformLimits } from '../platform-answers';
import { facebookApp } from './facebook-app';
import { sealableFacebookSecret, type FacebookCredentials } from './facebook-credentials';
import type { FacebookGraph, FacebookPage } from './facebook-graph';
import { graphCheck, type GraphPlatform } from '../meta/graph-failures';
import type { MediaReach } from '../meta/media-reach';

const CALL_TIMEOUT_MS = 15_000;

/** Page tokens made from a long-lived user token do not expire: nothing to renew, no deadline. */
const PAGE_TOKEN_TERMS: TokenTerms = { expiresAt: null, renewable: false, reconnectBy: null };

/** A channel of the connection and the page whose token publishes to it. */
export interface LoginChannel extends PlatformIdentity {
  pageId: string;
  pageToken: string;
}

/** What differs between the products Facebook Login connects: scopes, and channels of pages. */
export interface LoginProduct<P extends FacebookPage = FacebookPage> {
  readonly platform: GraphPlatform;
  readonly scopes: readonly string[];
  /** Read with each page beyond its id, name, token and link. */
  readonly pageFields: string;
  readonly limits: PlatformLimits;
  channelsOf(pages: P[]): LoginChannel[];
  readonly noChannels: string;
}

/** Facebook Login (no PKCE): code, short-lived then long-lived user token, the pages' tokens. */
export class FacebookLogin<P extends FacebookPage = FacebookPage> implements OAuthFlow {
  constructor(
    private readonly product: LoginProduct<P>,
    private readonly graph: FacebookGraph,
    private readonly config: AppConfig,
    private readonly reach: MediaReach,
  ) {}

  get configured(): boolean {
    return facebookApp(this.config).app !== null;
  }

  /** Meta fetches the media of every post: a Herald it cannot reach is refused here, not later. */
  async authorize(start: OAuthStart): Promise<{ url: string; context: Record<string, string> }> {
    const name = this.product.platform.displayName;
    const reach = await this.reach.check();
    if (!reach.reachable)
      throw new AppError(
        'media_url_not_public',
        `${name} cannot publish from this Herald: ${reach.reason}`,
      );
    const settings = facebookApp(this.config);
    const url = new URL(`${settings.dialogUrl}/dialog/oauth`);
    url.search = new URLSearchParams({
      client_id: settings.app!.id,
      redirect_uri: start.redirectUri,
      scope: this.product.scopes.join(','),
      response_type: 'code',
      state: start.state,
    }).toString();
    return { url: url.toString(), context: {} };
  }

  async finish(finish: OAuthFinish): Promise<ConnectedAccount> {
    const { platform } = this.product;
    const app = facebookApp(this.config).app;
    if (!app)
      throw new AppError('platform_not_configured', "Herald's Facebook app is not configured");
    const call = <T>(run: (signal: AbortSignal) => Promise<T>) =>
      graphCheck(platform, CALL_TIMEOUT_MS, run);
    const short = await call((signal) =>
      this.graph.exchangeCode(
        {
          clientId: app.id,
          clientSecret: app.secret,
          code: finish.code,
          redirectUri: finish.redirectUri,
        },
        signal,
      ),
    );
    const long = await call((signal) =>
      this.graph.longLived(app, this.tokenOf(short?.access_token, 'the code'), signal),
    );
    const userToken = this.tokenOf(long?.access_token, 'the short-lived token');
    const user = await call((signal) => this.graph.me(userToken, signal));
    if (typeof user?.id !== 'string' || user.id === '')
      throw this.rejected('Facebook did not say whose account the token is for');
    const pages = await call((signal) =>
      this.graph.pages<P>(userToken, this.product.pageFields, signal),
    );
    const channels = this.product.channelsOf(pages);
    if (channels.length === 0) throw this.rejected(this.product.noChannels);
    const credentials: FacebookCredentials = { userId: user.id, userToken, channels: {} };
    for (const channel of channels)
      credentials.channels[channel.id] = { pageId: channel.pageId, token: channel.pageToken };
    return {
      id: user.id,
      title: user.name || 'Facebook user',
      username: null,
      url: null,
      secret: sealableFacebookSecret(credentials),
      channels: channels.map(({ id, title, username, url }) => ({ id, title, username, url })),
      limits: this.product.limits,
      terms: PAGE_TOKEN_TERMS,
    };
  }

  private tokenOf(token: string | undefined, given: string): string {
    if (typeof token !== 'string' || token === '')
      throw this.rejected(`Facebook gave no access token for ${given}`);
    return token;
  }

  private rejected(message: string): AppError {
    return new AppError(`${this.product.platform.name}_rejected` as ErrorCode, message);
  }
}

import { AppError } from '../../../http/errors/error-codes';
import type { AppConfig } from '../../../infrastructure/config/config';
import { GraphApiError } from '../meta/graph-errors';
import type { MediaReach } from '../meta/media-reach';
import {
  RenewalRefused,
  type OAuthFinish,
  type OAuthFlow,
  type OAuthStart,
  type RenewedCredentials,
  type TokenRenewal,
  type TokenTerms,
} from '../oauth-flow';
import type { ConnectedAccount } from '../platform';
import type { ThreadsApi, ThreadsToken } from './threads-api';
import { THREADS_SCOPES } from './threads-connect';
import { readSecret, sealableSecret, type ThreadsCredentials } from './threads-credentials';
import { THREADS_LIMITS, threadsProfileUrl } from './threads-limits';
import { threadsSettings } from './threads-settings';

/** Threads renews a long-lived token only once it is this old; a minute more for clocks apart. */
export const RENEWABLE_AFTER_MS = 24 * 3_600_000 + 60_000;

interface ThreadsCalls {
  check<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

/** Meta's Authorization Window (no PKCE), then a long-lived token renewed before it expires. */
export class ThreadsOAuth implements OAuthFlow, TokenRenewal {
  readonly renewal: TokenRenewal = this;

  constructor(
    private readonly api: ThreadsApi,
    private readonly config: AppConfig,
    private readonly reach: MediaReach,
    private readonly calls: ThreadsCalls,
  ) {}

  get configured(): boolean {
    return threadsSettings(this.config).app !== null;
  }

  /** Meta fetches the media of every post: a Herald it cannot reach is refused here, not later. */
  async authorize(start: OAuthStart): Promise<{ url: string; context: Record<string, string> }> {
    const reach = await this.reach.check();
    if (!reach.reachable)
      throw new AppError(
        'media_url_not_public',
        `Threads cannot publish from this Herald: ${reach.reason}`,
      );
    const settings = threadsSettings(this.config);
    const url = new URL(settings.authorizeUrl);
    url.search = new URLSearchParams({
      client_id: settings.app!.id,
      redirect_uri: start.redirectUri,
      scope: THREADS_SCOPES.join(','),
      response_type: 'code',
      state: start.state,
    }).toString();
    return { url: url.toString(), context: {} };
  }

  async finish(finish: OAuthFinish): Promise<ConnectedAccount> {
    const app = threadsSettings(this.config).app;
    if (!app)
      throw new AppError('platform_not_configured', "Herald's Threads app is not configured");
    const short = await this.calls.check((signal) =>
      this.api.exchangeCode(
        {
          clientId: app.id,
          clientSecret: app.secret,
          code: finish.code,
          redirectUri: finish.redirectUri,
        },
        signal,
      ),
    );
    const shortToken = tokenOf(short, 'the code');
    const long = await this.calls.check((signal) =>
      this.api.longLived(app.secret, shortToken, signal),
    );
    const credentials = credentialsFrom(tokenOf(long, 'the short-lived token'), long, '');
    const profile = await this.calls.check((signal) =>
      this.api.me(credentials.accessToken, signal),
    );
    if (typeof profile?.id !== 'string' || typeof profile.username !== 'string')
      throw new AppError('threads_rejected', 'Threads did not say whose profile the token is for');
    credentials.userId = profile.id;
    const channel = {
      id: profile.id,
      title: profile.username,
      username: profile.username,
      url: threadsProfileUrl(profile.username),
    };
    return {
      ...channel,
      secret: sealableSecret(credentials),
      channels: [channel],
      limits: THREADS_LIMITS,
      terms: termsOf(credentials),
    };
  }

  /** A token under a day old cannot be renewed yet and has weeks to run: kept, never refused. */
  async renew(secret: string, signal: AbortSignal): Promise<RenewedCredentials> {
    const held = readSecret(secret);
    if (!held) throw new RenewalRefused("The account's Threads credentials are unreadable");
    if (Date.now() - held.issuedAtMs < RENEWABLE_AFTER_MS) return { secret, terms: termsOf(held) };
    let answer: ThreadsToken;
    try {
      answer = await this.api.refresh(held.accessToken, signal);
    } catch (error) {
      if (error instanceof GraphApiError && error.kind === 'token')
        throw new RenewalRefused(`Threads refused to renew the token: ${error.reason}`);
      throw error;
    }
    const renewed = credentialsFrom(tokenOf(answer, 'the token'), answer, held.userId);
    return { secret: sealableSecret(renewed), terms: termsOf(renewed) };
  }
}

function tokenOf(answer: ThreadsToken | undefined, given: string): string {
  if (typeof answer?.access_token !== 'string' || answer.access_token === '')
    throw new AppError('threads_rejected', `Threads gave no access token for ${given}`);
  return answer.access_token;
}

function credentialsFrom(token: string, answer: ThreadsToken, userId: string): ThreadsCredentials {
  const now = Date.now();
  const seconds =
    typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : null;
  return {
    userId,
    accessToken: token,
    issuedAtMs: now,
    expiresAtMs: seconds === null ? null : now + seconds * 1000,
  };
}

/** Renewals extend it, so nothing but its lapse forces a reconnect: `reconnectBy` null. */
function termsOf(credentials: ThreadsCredentials): TokenTerms {
  return {
    expiresAt: credentials.expiresAtMs === null ? null : new Date(credentials.expiresAtMs),
    renewable: credentials.expiresAtMs !== null,
    reconnectBy: null,
  };
}

import type { AppConfig } from '../../../infrastructure/config/config';
import {
  refusesRefreshForGood,
  RenewalRefused,
  type OAuthFinish,
  type OAuthFlow,
  type OAuthStart,
  type RenewedCredentials,
  type TokenRenewal,
  type TokenTerms,
} from '../oauth-flow';
import type { ConnectedAccount } from '../platform';
import { LinkedInApi, LinkedInApiError, type LinkedInToken } from './linkedin-api';
import { credentialsOf, sealableSecret } from './linkedin-credentials';
import { linkedInSettings } from './linkedin-settings';

const MEMBER_SCOPES = 'openid profile w_member_social';
const ORGANIZATION_SCOPES = 'w_organization_social r_organization_admin';
const DEFAULT_TOKEN_SECONDS = 60 * 24 * 3600;

function refusedForGood(error: unknown): boolean {
  return error instanceof LinkedInApiError && refusesRefreshForGood(error);
}

interface LinkedInCalls {
  check<T>(call: () => Promise<T>): Promise<T>;
  accountOf(token: LinkedInToken): Promise<ConnectedAccount>;
}

/** LinkedIn's 3-legged OAuth (a confidential client: no PKCE), renewed where it gave a refresh token. */
export class LinkedInOAuth implements OAuthFlow, TokenRenewal {
  readonly renewal: TokenRenewal = this;

  constructor(
    private readonly config: AppConfig,
    private readonly api: LinkedInApi,
    private readonly calls: LinkedInCalls,
  ) {}

  get configured(): boolean {
    return linkedInSettings(this.config).client !== null;
  }

  authorize(start: OAuthStart): Promise<{ url: string; context: Record<string, string> }> {
    const { oauthUrl, client, organizations } = linkedInSettings(this.config);
    const url = new URL(`${oauthUrl}/authorization`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client!.id,
      redirect_uri: start.redirectUri,
      state: start.state,
      scope: organizations ? `${MEMBER_SCOPES} ${ORGANIZATION_SCOPES}` : MEMBER_SCOPES,
    }).toString();
    return Promise.resolve({ url: url.toString(), context: {} });
  }

  async finish(finish: OAuthFinish): Promise<ConnectedAccount> {
    const grant = {
      grant_type: 'authorization_code',
      code: finish.code,
      redirect_uri: finish.redirectUri,
    };
    const token = await this.calls.check(() => this.api.token(grant, finish.signal));
    return this.calls.accountOf(token);
  }

  async renew(secret: string, signal: AbortSignal): Promise<RenewedCredentials> {
    const credentials = credentialsOf(secret);
    if (!credentials.refreshToken)
      throw new RenewalRefused('LinkedIn gave this account no refresh token');
    let token: LinkedInToken;
    try {
      token = await this.api.token(
        { grant_type: 'refresh_token', refresh_token: credentials.refreshToken },
        signal,
      );
    } catch (error) {
      if (refusedForGood(error)) throw new RenewalRefused((error as LinkedInApiError).reason);
      throw error;
    }
    if (typeof token?.access_token !== 'string' || token.access_token === '')
      throw new Error('LinkedIn renewed without an access token');
    const next = { ...token, refresh_token: token.refresh_token ?? credentials.refreshToken };
    return { secret: linkedInSecret(next, credentials.scopes), terms: linkedInTerms(next) };
  }
}

export function linkedInSecret(token: LinkedInToken, scopes?: string[]): string {
  return sealableSecret({
    accessToken: token.access_token,
    refreshToken: token.refresh_token ?? null,
    scopes: scopes ?? (token.scope ?? '').split(/[\s,]+/).filter(Boolean),
  });
}

/** 60-day tokens; a refresh token's own life (365 days, not extended by renewals) is reconnect_by. */
export function linkedInTerms(token: LinkedInToken, now = Date.now()): TokenTerms {
  const seconds =
    token.expires_in && token.expires_in > 0 ? token.expires_in : DEFAULT_TOKEN_SECONDS;
  const expiresAt = new Date(now + seconds * 1000);
  if (!token.refresh_token) return { expiresAt, renewable: false, reconnectBy: expiresAt };
  const refreshSeconds = token.refresh_token_expires_in;
  const reconnectBy =
    refreshSeconds && refreshSeconds > 0 ? new Date(now + refreshSeconds * 1000) : null;
  return { expiresAt, renewable: true, reconnectBy };
}

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
import { XApi, XApiError, type XToken } from './x-api';
import { credentialsOf, sealableSecret } from './x-credentials';
import { xSettings } from './x-settings';

export const X_SCOPES = 'tweet.read tweet.write users.read media.write offline.access';

const DEFAULT_TOKEN_SECONDS = 7_200;

function refusedForGood(error: unknown): boolean {
  return error instanceof XApiError && refusesRefreshForGood(error);
}

interface XCalls {
  check<T>(call: () => Promise<T>): Promise<T>;
  accountOf(token: XToken): Promise<ConnectedAccount>;
}

/** OAuth 2.0 with PKCE on X (always S256), renewed with the refresh token X rotates each time. */
export class XOAuth implements OAuthFlow, TokenRenewal {
  readonly renewal: TokenRenewal = this;

  constructor(
    private readonly config: AppConfig,
    private readonly api: XApi,
    private readonly calls: XCalls,
  ) {}

  get configured(): boolean {
    return xSettings(this.config).client !== null;
  }

  authorize(start: OAuthStart): Promise<{ url: string; context: Record<string, string> }> {
    const { authorizeUrl, client } = xSettings(this.config);
    const url = new URL(authorizeUrl);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client!.id,
      redirect_uri: start.redirectUri,
      scope: X_SCOPES,
      state: start.state,
      code_challenge: start.codeChallenge,
      code_challenge_method: 'S256',
    }).toString();
    return Promise.resolve({ url: url.toString(), context: {} });
  }

  async finish(finish: OAuthFinish): Promise<ConnectedAccount> {
    const token = await this.calls.check(() =>
      this.api.token(
        {
          grant_type: 'authorization_code',
          code: finish.code,
          redirect_uri: finish.redirectUri,
          code_verifier: finish.codeVerifier,
          client_id: xSettings(this.config).client!.id,
        },
        finish.signal,
      ),
    );
    return this.calls.accountOf(token);
  }

  async renew(secret: string, signal: AbortSignal): Promise<RenewedCredentials> {
    const credentials = credentialsOf(secret);
    if (!credentials.refreshToken) throw new RenewalRefused('X gave this account no refresh token');
    let token: XToken;
    try {
      token = await this.api.token(
        {
          grant_type: 'refresh_token',
          refresh_token: credentials.refreshToken,
          client_id: xSettings(this.config).client?.id ?? '',
        },
        signal,
      );
    } catch (error) {
      if (refusedForGood(error)) throw new RenewalRefused((error as XApiError).reason);
      throw error;
    }
    if (typeof token?.access_token !== 'string' || token.access_token === '')
      throw new Error('X renewed without an access token');
    return {
      secret: sealableSecret({
        ...credentials,
        accessToken: token.access_token,
        refreshToken: token.refresh_token ?? credentials.refreshToken,
      }),
      terms: xTerms(token),
    };
  }
}

/** Renewable while X gave a refresh token; X's refresh tokens do not expire while used. */
export function xTerms(token: XToken, now = Date.now()): TokenTerms {
  const seconds =
    typeof token.expires_in === 'number' && token.expires_in > 0
      ? token.expires_in
      : DEFAULT_TOKEN_SECONDS;
  const expiresAt = new Date(now + seconds * 1000);
  const renewable = typeof token.refresh_token === 'string' && token.refresh_token !== '';
  return { expiresAt, renewable, reconnectBy: renewable ? null : expiresAt };
}

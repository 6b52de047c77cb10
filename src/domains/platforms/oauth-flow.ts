import type { ConnectedAccount, ConnectFields } from './platform';

/** An OAuth client Herald registered with an authorization server, its secret in clear. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/** Clients Herald registered on servers that register them on request, by server origin. */
export interface OAuthClients {
  find(platform: string, issuer: string, redirectUri: string): Promise<OAuthClient | null>;
  /** Keeps `client` unless one was kept meanwhile, and answers the one kept. */
  keep(
    platform: string,
    issuer: string,
    redirectUri: string,
    client: OAuthClient,
  ): Promise<OAuthClient>;
}

/** What the callback needs of the start, kept with the state (never a secret). */
export type OAuthContext = Readonly<Record<string, string>>;

export interface OAuthStart {
  /** The start body's fields beyond `platform` and `redirect_url`, as the platform declares them. */
  fields: ConnectFields;
  redirectUri: string;
  state: string;
  /** PKCE S256 challenge of the start's verifier. */
  codeChallenge: string;
  clients: OAuthClients;
}

export interface OAuthFinish {
  /** Bounds the whole exchange. */
  signal: AbortSignal;
  code: string;
  redirectUri: string;
  codeVerifier: string;
  context: OAuthContext;
  clients: OAuthClients;
}

/**
 * A platform's half of the authorization-code flow: where to send the user, then the account a
 * code stands for. Its refusals are Herald's errors, as the connector's are.
 */
export interface OAuthFlow {
  /** False while the operator has not set the platform's app. */
  readonly configured: boolean;
  readonly renewal?: TokenRenewal;
  authorize(start: OAuthStart): Promise<{ url: string; context: OAuthContext }>;
  finish(finish: OAuthFinish): Promise<ConnectedAccount>;
}

/** Null dates: never. `reconnectBy`: after it nothing can renew the credentials. */
export interface TokenTerms {
  expiresAt: Date | null;
  renewable: boolean;
  reconnectBy: Date | null;
}

/** `secret`: the new access token, and the refresh token if the platform rotated it. */
export interface RenewedCredentials {
  secret: string;
  terms: TokenTerms;
}

/** The platform refuses the renewal for good: only a new connection helps. */
export class RenewalRefused extends Error {}

/**
 * A token endpoint's refusal of a refresh token it no longer honours: `invalid_grant`, or the
 * `invalid_request` some platforms answer a used, expired or revoked one with ("Value passed for the
 * token was invalid."). A 5xx or 429 is never one.
 */
export function refusesRefreshForGood(answer: {
  status: number;
  oauthError: string | null;
  reason: string;
}): boolean {
  if (answer.status >= 500 || answer.status === 429) return false;
  return (
    answer.oauthError === 'invalid_grant' ||
    (answer.oauthError === 'invalid_request' && /token|grant|expired|revoked/i.test(answer.reason))
  );
}

/** Throws RenewalRefused for a refusal for good; any other error is transient. */
export interface TokenRenewal {
  renew(secret: string, signal: AbortSignal): Promise<RenewedCredentials>;
}

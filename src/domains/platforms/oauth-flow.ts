import type { ConnectedAccount, ConnectFields } from './platform';

/** An OAuth client Herald registered with an authorization server, its secret in clear. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/**
 * The clients Herald registered on servers that register clients on request (each instance of
 * a federated platform), kept sealed by the connections module; keyed by the server's origin.
 */
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
  /** False while the operator has not given Herald the platform's app (its settings). */
  readonly configured: boolean;
  /** Present where the platform's access tokens expire. */
  readonly renewal?: TokenRenewal;
  authorize(start: OAuthStart): Promise<{ url: string; context: OAuthContext }>;
  finish(finish: OAuthFinish): Promise<ConnectedAccount>;
}

/** How long what the platform gave lasts. */
export interface TokenTerms {
  /** When the access token expires; null: it does not. */
  expiresAt: Date | null;
  /** The platform gives a new access token for these credentials (a refresh token, or the token itself). */
  renewable: boolean;
  /** After this nothing can renew them (no refresh token, or one that expires itself); null: never. */
  reconnectBy: Date | null;
}

export interface RenewedCredentials {
  /** The credentials to seal: the new access token, and the refresh token the platform rotated. */
  secret: string;
  terms: TokenTerms;
}

/** The platform refuses the credentials' renewal for good: only a new connection helps. */
export class RenewalRefused extends Error {}

/** The part of a platform's flow that keeps expiring tokens alive. */
export interface TokenRenewal {
  /**
   * New credentials for `secret` (as the platform's connector made it). Throws RenewalRefused
   * when the platform refuses for good (an OAuth `invalid_grant`, its own expired-or-revoked
   * answer); any other error is transient and leaves the account as it is.
   */
  renew(secret: string, signal: AbortSignal): Promise<RenewedCredentials>;
}

import { createHash, randomBytes } from 'node:crypto';

/** An application registered with `POST /api/v1/apps`. */
export interface RegisteredApp {
  name: string;
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  scopes: string[];
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  challenge: string | null;
  scopes: string;
  accountToken: string;
  used: boolean;
  expiresAt: number;
}

export interface OAuthAnswer {
  status: number;
  body?: unknown;
  /** An HTML page, as Doorkeeper shows its own errors on the authorize route. */
  html?: string;
  location?: string;
}

const INVALID_CLIENT = {
  error: 'invalid_client',
  error_description:
    'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
};
const INVALID_GRANT = {
  error: 'invalid_grant',
  error_description:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
};

/**
 * A Mastodon instance's OAuth 2.0 side as Doorkeeper serves it there: apps registered on request,
 * the authorize page (where the signed-in user consents, or declines), and the token endpoint that
 * checks the client, its secret, the code (single use, 10 minutes), the redirect URI and PKCE.
 * The test plays the user: `signIn(token)` names the account that consents, `decline()` says no.
 */
export class MastodonOAuthServer {
  readonly apps: RegisteredApp[] = [];
  private readonly codes = new Map<string, IssuedCode>();
  private user: string | null = null;
  private declining = false;

  constructor(private readonly issueToken: (accountToken: string) => string) {}

  /** The account (by its token) that is signed in on the instance's consent page. */
  signIn(accountToken: string): void {
    this.user = accountToken;
    this.declining = false;
  }

  /** The user presses "Deny" at the next consent. */
  decline(): void {
    this.declining = true;
  }

  registerApp(body: Record<string, unknown>): OAuthAnswer {
    const name = body.client_name;
    const uris = body.redirect_uris;
    if (typeof name !== 'string' || name === '' || typeof uris !== 'string' || uris === '')
      return {
        status: 422,
        body: { error: "Validation failed: Name can't be blank, Redirect URI can't be blank" },
      };
    const scopes = typeof body.scopes === 'string' && body.scopes !== '' ? body.scopes : 'read';
    const app: RegisteredApp = {
      name,
      clientId: randomBytes(24).toString('base64url'),
      clientSecret: randomBytes(32).toString('base64url'),
      redirectUris: uris.split(/\s+/),
      scopes: scopes.split(/\s+/),
    };
    this.apps.push(app);
    return {
      status: 200,
      body: {
        id: String(this.apps.length),
        name,
        website: null,
        scopes: app.scopes,
        redirect_uris: app.redirectUris,
        redirect_uri: uris,
        client_id: app.clientId,
        client_secret: app.clientSecret,
        vapid_key: '',
      },
    };
  }

  authorize(query: URLSearchParams): OAuthAnswer {
    const app = this.apps.find((a) => a.clientId === query.get('client_id'));
    const redirectUri = query.get('redirect_uri') ?? '';
    if (!app || !app.redirectUris.includes(redirectUri))
      return { status: 400, html: '<p>Client authentication failed due to unknown client.</p>' };
    const back = new URL(redirectUri);
    const state = query.get('state');
    const scopes = (query.get('scope') ?? 'read').split(/\s+/);
    const answer = (params: Record<string, string>): OAuthAnswer => {
      for (const [name, value] of Object.entries(params)) back.searchParams.set(name, value);
      if (state !== null) back.searchParams.set('state', state);
      return { status: 302, location: back.toString() };
    };
    if (query.get('response_type') !== 'code')
      return answer({
        error: 'unsupported_response_type',
        error_description: 'The authorization server does not support this response type.',
      });
    if (!scopes.every((scope) => app.scopes.includes(scope)))
      return answer({
        error: 'invalid_scope',
        error_description: 'The requested scope is invalid, unknown, or malformed.',
      });
    const method = query.get('code_challenge_method');
    if (query.get('code_challenge') && method !== 'S256')
      return answer({
        error: 'invalid_request',
        error_description: 'The code challenge method must be S256.',
      });
    if (this.declining || this.user === null) {
      this.declining = false;
      return answer({
        error: 'access_denied',
        error_description: 'The resource owner or authorization server denied the request.',
      });
    }
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, {
      clientId: app.clientId,
      redirectUri,
      challenge: query.get('code_challenge'),
      scopes: scopes.join(' '),
      accountToken: this.user,
      used: false,
      expiresAt: Date.now() + 10 * 60_000,
    });
    return answer({ code });
  }

  token(body: Record<string, unknown>, basic: string | undefined): OAuthAnswer {
    const [basicId, basicSecret] = basic
      ? Buffer.from(basic.replace(/^Basic /, ''), 'base64')
          .toString()
          .split(':')
      : [];
    const clientId = (body.client_id as string | undefined) ?? basicId;
    const secret = (body.client_secret as string | undefined) ?? basicSecret;
    const app = this.apps.find((a) => a.clientId === clientId);
    if (!app || app.clientSecret !== secret) return { status: 401, body: INVALID_CLIENT };
    if (body.grant_type !== 'authorization_code')
      return {
        status: 400,
        body: {
          error: 'unsupported_grant_type',
          error_description:
            'The authorization grant type is not supported by the authorization server.',
        },
      };
    const issued = this.codes.get(String(body.code));
    const verifier = typeof body.code_verifier === 'string' ? body.code_verifier : '';
    const pkce =
      issued?.challenge === null ||
      createHash('sha256').update(verifier).digest('base64url') === issued?.challenge;
    if (
      !issued ||
      issued.used ||
      issued.expiresAt < Date.now() ||
      issued.clientId !== app.clientId ||
      issued.redirectUri !== body.redirect_uri ||
      !pkce
    )
      return { status: 400, body: INVALID_GRANT };
    issued.used = true;
    return {
      status: 200,
      body: {
        access_token: this.issueToken(issued.accountToken),
        token_type: 'Bearer',
        scope: issued.scopes,
        created_at: Math.floor(Date.now() / 1000),
      },
    };
  }
}

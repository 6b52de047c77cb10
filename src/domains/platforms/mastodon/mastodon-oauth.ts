import { AppError } from '../../../http/errors/error-codes';
import { parseOutboundUrl } from '../../../infrastructure/outbound/pinned-address';
import { readFields } from '../connect-fields';
import type { OAuthClient, OAuthClients, OAuthFinish, OAuthFlow, OAuthStart } from '../oauth-flow';
import type { ConnectedAccount } from '../platform';
import { INSTANCE_USE, type MastodonApi, type MastodonCredentials } from './mastodon-api';
import { MASTODON_OAUTH, MASTODON_SCOPES } from './mastodon-connect';

interface MastodonCalls {
  check<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T>;
  accountOf(credentials: MastodonCredentials): Promise<ConnectedAccount>;
}

/**
 * Mastodon's authorization-code flow with PKCE. Any instance is its own authorization server, so
 * Herald registers itself on one the first time a connection starts there and keeps that client.
 */
export class MastodonOAuth implements OAuthFlow {
  /** Herald registers itself on each instance: nothing for the operator to configure. */
  readonly configured = true;

  constructor(
    private readonly api: MastodonApi,
    private readonly calls: MastodonCalls,
  ) {}

  async authorize(start: OAuthStart): Promise<{ url: string; context: { instance_url: string } }> {
    const read = readFields(start.fields, MASTODON_OAUTH.fields, 'Mastodon');
    const instance = parseOutboundUrl(read.instance_url as string, INSTANCE_USE).origin;
    const client = await this.clientOn(instance, start.redirectUri, start.clients);
    const url = new URL('/oauth/authorize', instance);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: start.redirectUri,
      scope: MASTODON_SCOPES,
      state: start.state,
      code_challenge: start.codeChallenge,
      code_challenge_method: 'S256',
    }).toString();
    return { url: url.toString(), context: { instance_url: instance } };
  }

  async finish(finish: OAuthFinish): Promise<ConnectedAccount> {
    const instance = finish.context.instance_url;
    const client = await finish.clients.find('mastodon', instance, finish.redirectUri);
    if (!client)
      throw new AppError('mastodon_rejected', 'Herald is not registered on this instance');
    const token = await this.calls.check((signal) =>
      this.api.exchangeCode(
        instance,
        {
          client: { client_id: client.clientId, client_secret: client.clientSecret },
          code: finish.code,
          redirectUri: finish.redirectUri,
          codeVerifier: finish.codeVerifier,
          scope: MASTODON_SCOPES,
        },
        signal,
      ),
    );
    if (typeof token?.access_token !== 'string' || token.access_token === '')
      throw new AppError('mastodon_rejected', 'The instance gave no access token for the code');
    return this.calls.accountOf({ instanceUrl: instance, accessToken: token.access_token });
  }

  private async clientOn(
    instance: string,
    redirectUri: string,
    clients: OAuthClients,
  ): Promise<OAuthClient> {
    const kept = await clients.find('mastodon', instance, redirectUri);
    if (kept) return kept;
    const app = await this.calls.check((signal) =>
      this.api.registerApp(
        instance,
        { client_name: 'Herald', redirect_uris: redirectUri, scopes: MASTODON_SCOPES },
        signal,
      ),
    );
    if (typeof app?.client_id !== 'string' || typeof app.client_secret !== 'string')
      throw new AppError('mastodon_rejected', 'The address does not answer as a Mastodon instance');
    return clients.keep('mastodon', instance, redirectUri, {
      clientId: app.client_id,
      clientSecret: app.client_secret,
    });
  }
}

import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError } from '../../../http/errors/error-codes';
import { platformRateLimited } from '../platform-rate-limit';
import { HostUnresolvedError } from '../../../infrastructure/outbound/outbound-dispatchers';
import { parseOutboundUrl } from '../../../infrastructure/outbound/pinned-address';
import type {
  ConnectedAccount,
  ConnectFields,
  DemoAccount,
  PlatformConnector,
  PlatformIdentity,
} from '../platform';
import { readFields } from '../connect-fields';
import type { OAuthFlow } from '../oauth-flow';
import { MastodonOAuth } from './mastodon-oauth';
import { MASTODON_CONNECT } from './mastodon-connect';
import {
  INSTANCE_USE,
  MASTODON_TIMEOUT_MS,
  MastodonApi,
  MastodonApiError,
  MastodonTransportError,
  type MastodonAccount,
  type MastodonCredentials,
} from './mastodon-api';
import { sealableSecret } from './mastodon-credentials';
import { instanceLimits, MASTODON_LIMITS } from './mastodon-limits';

/** Checked with verify_credentials, limits from the instance; its one channel is its timeline. */
@Injectable()
export class MastodonConnector implements PlatformConnector {
  readonly platform = 'mastodon';
  readonly displayName = 'Mastodon';

  readonly oauth: OAuthFlow;

  constructor(private readonly api: MastodonApi) {
    this.oauth = new MastodonOAuth(api, this);
  }

  /** `instance_url` is kept as its origin, under the outbound address rules at every call. */
  async connect(fields: ConnectFields): Promise<ConnectedAccount> {
    const read = readFields(fields, MASTODON_CONNECT.fields, this.displayName);
    const url = parseOutboundUrl(read.instance_url as string, INSTANCE_USE);
    return this.accountOf({ instanceUrl: url.origin, accessToken: read.access_token as string });
  }

  /** The account the credentials belong to, with its timeline and its instance's limits. */
  async accountOf(credentials: MastodonCredentials): Promise<ConnectedAccount> {
    const account = await this.check((signal) => this.api.verifyCredentials(credentials, signal));
    if (typeof account?.id !== 'string' || typeof account.username !== 'string')
      throw new AppError('mastodon_rejected', 'The address does not answer as a Mastodon instance');
    const instance = await this.check((signal) => this.api.instance(credentials, signal));
    const timeline = ownTimeline(account);
    return {
      ...timeline,
      secret: sealableSecret(credentials),
      channels: [timeline],
      limits: instanceLimits(instance),
    };
  }

  /** Its own timeline only, made with the account. */
  addChannel(): Promise<PlatformIdentity> {
    return Promise.reject(
      new AppError(
        'channels_not_addable',
        'A Mastodon account publishes to its own timeline, its one channel, added when the ' +
          'account was connected; no other channel can be added',
      ),
    );
  }

  /** On an instance that never resolves (.invalid): publishing to it fails. */
  demo(): DemoAccount {
    const id = '109000000000000001';
    const timeline = {
      id,
      title: 'Herald demo',
      username: 'herald_demo',
      url: 'https://mastodon.invalid/@herald_demo',
    };
    const credentials = {
      instanceUrl: 'https://mastodon.invalid',
      accessToken: randomBytes(32).toString('base64url'),
    };
    return {
      account: { ...timeline, secret: sealableSecret(credentials), limits: MASTODON_LIMITS },
      channels: [timeline],
    };
  }

  /** 429 is a rate limit, another 4xx a refusal, the rest unavailable. */
  async check<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new DOMException('The call timed out', 'TimeoutError')),
      MASTODON_TIMEOUT_MS,
    );
    try {
      return await call(abort.signal);
    } catch (error) {
      if (error instanceof MastodonApiError && error.status === 429)
        throw platformRateLimited('Mastodon', error.retryAfterMs);
      if (error instanceof MastodonApiError && error.status < 500 && error.status !== 429) {
        throw new AppError('mastodon_rejected', `Mastodon rejected the request: ${error.reason}`);
      }
      if (error instanceof MastodonApiError || error instanceof MastodonTransportError) {
        throw new AppError(
          'mastodon_unavailable',
          'The Mastodon instance could not be reached; try again later',
        );
      }
      if (error instanceof HostUnresolvedError)
        throw new AppError(
          'invalid_url',
          'The host name of the instance_url could not be resolved',
        );
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}

function ownTimeline(account: MastodonAccount): PlatformIdentity {
  return {
    id: String(account.id),
    title: account.display_name || account.username,
    username: account.acct,
    url: typeof account.url === 'string' ? account.url : null,
  };
}

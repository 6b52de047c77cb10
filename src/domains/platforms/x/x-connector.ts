import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError } from '../../../http/errors/error-codes';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import type {
  ConnectedAccount,
  DemoAccount,
  PlatformConnector,
  PlatformIdentity,
} from '../platform';
import { platformRateLimited } from '../platform-rate-limit';
import { XApi, XApiError, XTransportError, type XToken, type XUser } from './x-api';
import { sealableSecret } from './x-credentials';
import { XOAuth, xTerms } from './x-oauth';

/** X accounts connect through OAuth only; an account's one channel is its own timeline. */
@Injectable()
export class XConnector implements PlatformConnector {
  readonly platform = 'x';
  readonly displayName = 'X';
  readonly oauth: XOAuth;

  constructor(
    private readonly api: XApi,
    @InjectConfig() config: AppConfig,
  ) {
    this.oauth = new XOAuth(config, api, this);
  }

  /** The user the token belongs to, as the account and its one channel. */
  async accountOf(token: XToken): Promise<ConnectedAccount> {
    if (typeof token?.access_token !== 'string' || token.access_token === '')
      throw new AppError('x_rejected', 'X gave no access token for the code');
    const user = await this.check(() => this.api.me(token.access_token));
    if (typeof user?.id !== 'string' || typeof user.username !== 'string')
      throw new AppError('x_rejected', 'X did not say whose account this is');
    const timeline = ownTimeline(user);
    const secret = sealableSecret({
      userId: user.id,
      username: user.username,
      accessToken: token.access_token,
      refreshToken: token.refresh_token ?? null,
    });
    return { ...timeline, secret, channels: [timeline], terms: xTerms(token) };
  }

  addChannel(): Promise<PlatformIdentity> {
    return Promise.reject(
      new AppError(
        'channels_not_addable',
        'An X account publishes to its own timeline, its one channel, added when the account ' +
          'was connected; no other channel can be added',
      ),
    );
  }

  /** Tokens X never issued: publishing to it fails until the account is connected for real. */
  demo(): DemoAccount {
    const user = { id: '1800000000000000001', name: 'Herald demo', username: 'herald_demo' };
    const timeline = ownTimeline(user);
    const secret = sealableSecret({
      userId: user.id,
      username: user.username,
      accessToken: randomBytes(32).toString('base64url'),
      refreshToken: null,
    });
    return { account: { ...timeline, secret }, channels: [timeline] };
  }

  /** 429 is a rate limit, another 4xx a refusal, the rest unavailable. */
  async check<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof XApiError && error.status === 429)
        throw platformRateLimited('X', error.retryAfterMs);
      if (error instanceof XApiError && error.status < 500)
        throw new AppError('x_rejected', `X rejected the request: ${error.reason}`);
      if (error instanceof XApiError || error instanceof XTransportError)
        throw new AppError('x_unavailable', 'X could not be reached; try again later');
      throw error;
    }
  }
}

function ownTimeline(user: XUser): PlatformIdentity {
  return {
    id: user.id,
    title: user.name || user.username,
    username: user.username,
    url: `https://x.com/${user.username}`,
  };
}

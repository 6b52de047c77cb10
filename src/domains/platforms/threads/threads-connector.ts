import { randomBytes } from 'node:crypto';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { AppError } from '../../../http/errors/error-codes';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { MediaReach } from '../meta/media-reach';
import type { OAuthFlow } from '../oauth-flow';
import type { DemoAccount, PlatformConnector, PlatformIdentity } from '../platform';
import { ThreadsApi } from './threads-api';
import { sealableSecret } from './threads-credentials';
import { graphCheck } from '../meta/graph-failures';
import { THREADS_LIMITS, threadsProfileUrl } from './threads-limits';
import { ThreadsOAuth } from './threads-oauth';
import { threadsSettings } from './threads-settings';

const CALL_TIMEOUT_MS = 15_000;

@Injectable()
export class ThreadsConnector implements PlatformConnector, OnApplicationBootstrap {
  readonly platform = 'threads';
  readonly displayName = 'Threads';
  readonly oauth: OAuthFlow;

  constructor(
    api: ThreadsApi,
    private readonly reach: MediaReach,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    this.oauth = new ThreadsOAuth(api, config, reach, this);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (threadsSettings(this.config).app) await this.reach.warnIfUnreachable('Threads');
  }

  addChannel(): Promise<PlatformIdentity> {
    return Promise.reject(
      new AppError(
        'channels_not_addable',
        'A Threads account publishes to its own profile, its one channel, added when the ' +
          'account was connected; no other channel can be added',
      ),
    );
  }

  demo(): DemoAccount {
    const profile = {
      id: '17841400000000009',
      title: 'herald_demo',
      username: 'herald_demo',
      url: threadsProfileUrl('herald_demo'),
    };
    const secret = sealableSecret({
      userId: profile.id,
      accessToken: randomBytes(32).toString('base64url'),
      issuedAtMs: Date.now(),
      expiresAtMs: null,
    });
    return { account: { ...profile, secret, limits: THREADS_LIMITS }, channels: [profile] };
  }

  check<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return graphCheck({ name: 'threads', displayName: 'Threads' }, CALL_TIMEOUT_MS, call);
  }
}

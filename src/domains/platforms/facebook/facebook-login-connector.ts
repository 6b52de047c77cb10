import type { OnApplicationBootstrap } from '@nestjs/common';
import { AppError } from '../../../http/errors/error-codes';
import type { AppConfig } from '../../../infrastructure/config/config';
import type { DemoAccount, PlatformConnector, PlatformIdentity } from '../platform';
import { facebookApp } from './facebook-app';
import type { FacebookGraph, FacebookPage } from './facebook-graph';
import { FacebookLogin, type LoginProduct } from './facebook-login';
import type { MediaReach } from '../meta/media-reach';

/** A network connected through Facebook Login only, its channels coming with the connection. */
export abstract class FacebookLoginConnector<P extends FacebookPage = FacebookPage>
  implements PlatformConnector, OnApplicationBootstrap
{
  readonly platform: string;
  readonly displayName: string;
  readonly oauth: FacebookLogin<P>;

  protected constructor(
    product: LoginProduct<P>,
    private readonly addingChannels: string,
    api: FacebookGraph,
    private readonly reach: MediaReach,
    private readonly config: AppConfig,
  ) {
    this.platform = product.platform.name;
    this.displayName = product.platform.displayName;
    this.oauth = new FacebookLogin(product, api, config, reach);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (facebookApp(this.config).app) await this.reach.warnIfUnreachable(this.displayName);
  }

  addChannel(): Promise<PlatformIdentity> {
    return Promise.reject(new AppError('channels_not_addable', this.addingChannels));
  }

  abstract demo(): DemoAccount;
}

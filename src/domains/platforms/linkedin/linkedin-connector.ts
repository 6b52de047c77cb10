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
import {
  LinkedInApi,
  LinkedInApiError,
  LinkedInTransportError,
  type LinkedInToken,
} from './linkedin-api';
import { LinkedInOAuth, linkedInSecret, linkedInTerms } from './linkedin-oauth';
import { linkedInSettings } from './linkedin-settings';

/** Through OAuth only: the member, and with organizations each one the member administers. */
@Injectable()
export class LinkedInConnector implements PlatformConnector {
  readonly platform = 'linkedin';
  readonly displayName = 'LinkedIn';
  readonly oauth: LinkedInOAuth;

  constructor(
    private readonly api: LinkedInApi,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    this.oauth = new LinkedInOAuth(config, api, this);
  }

  async accountOf(token: LinkedInToken): Promise<ConnectedAccount> {
    if (typeof token?.access_token !== 'string' || token.access_token === '')
      throw new AppError('linkedin_rejected', 'LinkedIn gave no access token for the code');
    const member = await this.check(() => this.api.member(token.access_token));
    if (typeof member?.sub !== 'string' || member.sub === '')
      throw new AppError('linkedin_rejected', 'LinkedIn did not say whose account this is');
    const self = {
      id: `urn:li:person:${member.sub}`,
      title: member.name || 'LinkedIn member',
      username: null,
      url: null,
    };
    const channels: PlatformIdentity[] = [self];
    if (linkedInSettings(this.config).organizations)
      channels.push(...(await this.organizations(token.access_token)));
    return {
      ...self,
      id: member.sub,
      secret: linkedInSecret(token),
      channels,
      terms: linkedInTerms(token),
    };
  }

  addChannel(): Promise<PlatformIdentity> {
    return Promise.reject(
      new AppError(
        'channels_not_addable',
        'A LinkedIn account brings its channels when it connects (the member, and the ' +
          'organizations the member administers); connect it again to pick up new ones',
      ),
    );
  }

  demo(): DemoAccount {
    const member = {
      id: 'urn:li:person:herald-demo',
      title: 'Herald demo',
      username: null,
      url: null,
    };
    const secret = linkedInSecret({ access_token: randomBytes(32).toString('base64url') });
    return { account: { ...member, id: 'herald-demo', secret }, channels: [member] };
  }

  /** 429 is a rate limit, another 4xx a refusal, the rest unavailable. */
  async check<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof LinkedInApiError && error.status === 429)
        throw platformRateLimited('LinkedIn', error.retryAfterMs);
      if (error instanceof LinkedInApiError && error.status < 500)
        throw new AppError('linkedin_rejected', `LinkedIn rejected the request: ${error.reason}`);
      if (error instanceof LinkedInApiError || error instanceof LinkedInTransportError)
        throw new AppError(
          'linkedin_unavailable',
          'LinkedIn could not be reached; try again later',
        );
      throw error;
    }
  }

  private async organizations(token: string): Promise<PlatformIdentity[]> {
    const urns = await this.check(() => this.api.administered(token));
    const found: PlatformIdentity[] = [];
    for (const urn of urns) {
      const id = /^urn:li:organization:(\d+)$/.exec(urn)?.[1];
      if (!id) continue;
      const organization = await this.check(() => this.api.organization(token, id));
      found.push({
        id: urn,
        title: organization.localizedName || `Organization ${id}`,
        username: organization.vanityName ?? null,
        url: organization.vanityName
          ? `https://www.linkedin.com/company/${organization.vanityName}`
          : null,
      });
    }
    return found;
  }
}

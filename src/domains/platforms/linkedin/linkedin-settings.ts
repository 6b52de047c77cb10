import { IsString } from 'class-validator';
import type { AppConfig } from '../../../infrastructure/config/config';
import { Omittable } from '../../../http/input/omittable';
import {
  Pattern,
  SetTogetherWith,
  TrueOrFalse,
  UrlOf,
} from '../../../infrastructure/config/variable-rules';

/** LinkedIn's environment variables: the operator's app and LinkedIn's addresses. */
export class LinkedInVariables {
  /** Unset with its secret: LinkedIn accounts cannot be connected (platform_not_configured). */
  @SetTogetherWith('LINKEDIN_CLIENT_SECRET')
  LINKEDIN_CLIENT_ID?: string;

  @Omittable()
  @IsString()
  LINKEDIN_CLIENT_SECRET?: string;

  @UrlOf(['http:', 'https:'])
  LINKEDIN_API_URL = 'https://api.linkedin.com';

  @UrlOf(['http:', 'https:'])
  LINKEDIN_OAUTH_URL = 'https://www.linkedin.com/oauth/v2';

  @Pattern(/^\d{6}$/)
  LINKEDIN_VERSION = '202611';

  @TrueOrFalse()
  LINKEDIN_ORGANIZATIONS = false;
}

export interface LinkedInSettings {
  client: { id: string; secret: string } | null;
  apiUrl: string;
  oauthUrl: string;
  /** `LinkedIn-Version` of every `/rest` call. */
  version: string;
  /** The app has the Community Management product: organizations the member administers too. */
  organizations: boolean;
}

export function readLinkedInSettings(v: LinkedInVariables): LinkedInSettings {
  return {
    client:
      v.LINKEDIN_CLIENT_ID && v.LINKEDIN_CLIENT_SECRET
        ? { id: v.LINKEDIN_CLIENT_ID, secret: v.LINKEDIN_CLIENT_SECRET }
        : null,
    apiUrl: v.LINKEDIN_API_URL.replace(/\/+$/, ''),
    oauthUrl: v.LINKEDIN_OAUTH_URL.replace(/\/+$/, ''),
    version: v.LINKEDIN_VERSION,
    organizations: v.LINKEDIN_ORGANIZATIONS,
  };
}

export function linkedInSettings(config: AppConfig): LinkedInSettings {
  return config.platforms.linkedin as LinkedInSettings;
}

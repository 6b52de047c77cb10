import { IsString } from 'class-validator';
import type { AppConfig } from '../../../infrastructure/config/config';
import { Omittable } from '../../../http/input/omittable';
import { SetTogetherWith, UrlOf } from '../../../infrastructure/config/variable-rules';

/** X's environment variables: the operator's app (OAuth 2.0 client) and X's addresses. */
export class XVariables {
  /** Unset with its secret: X accounts cannot be connected (platform_not_configured). */
  @SetTogetherWith('X_CLIENT_SECRET')
  X_CLIENT_ID?: string;

  @Omittable()
  @IsString()
  X_CLIENT_SECRET?: string;

  @UrlOf(['http:', 'https:'])
  X_API_URL = 'https://api.x.com';

  @UrlOf(['http:', 'https:'])
  X_AUTHORIZE_URL = 'https://x.com/i/oauth2/authorize';
}

export interface XSettings {
  client: { id: string; secret: string } | null;
  apiUrl: string;
  authorizeUrl: string;
}

export function readXSettings(v: XVariables): XSettings {
  return {
    client:
      v.X_CLIENT_ID && v.X_CLIENT_SECRET ? { id: v.X_CLIENT_ID, secret: v.X_CLIENT_SECRET } : null,
    apiUrl: v.X_API_URL.replace(/\/+$/, ''),
    authorizeUrl: v.X_AUTHORIZE_URL,
  };
}

export function xSettings(config: AppConfig): XSettings {
  return config.platforms.x as XSettings;
}

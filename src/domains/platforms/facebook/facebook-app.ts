import { IsString } from 'class-validator';
import type { AppConfig } from '../../../infrastructure/config/config';
import { Omittable } from '../../../http/input/omittable';
import { SetTogetherWith, UrlOf } from '../../../infrastructure/config/variable-rules';

/** The operator's Facebook app (Facebook Login), for pages and the products built on it. */
export class FacebookAppVariables {
  @Omittable()
  @IsString()
  @SetTogetherWith('FACEBOOK_APP_SECRET')
  FACEBOOK_APP_ID?: string;

  @Omittable()
  @IsString()
  @SetTogetherWith('FACEBOOK_APP_ID')
  FACEBOOK_APP_SECRET?: string;

  @UrlOf(['http:', 'https:'])
  FACEBOOK_GRAPH_URL = 'https://graph.facebook.com/v23.0';

  @UrlOf(['http:', 'https:'])
  FACEBOOK_DIALOG_URL = 'https://www.facebook.com/v23.0';
}

export interface FacebookAppSettings {
  app: { id: string; secret: string } | null;
  /** The Graph API's root with its version, as the operator gives it. */
  graphUrl: string;
  /** Where `/dialog/oauth` is, with its version. */
  dialogUrl: string;
}

export function readFacebookApp(v: FacebookAppVariables): FacebookAppSettings {
  return {
    app:
      v.FACEBOOK_APP_ID && v.FACEBOOK_APP_SECRET
        ? { id: v.FACEBOOK_APP_ID, secret: v.FACEBOOK_APP_SECRET }
        : null,
    graphUrl: v.FACEBOOK_GRAPH_URL.replace(/\/+$/, ''),
    dialogUrl: v.FACEBOOK_DIALOG_URL.replace(/\/+$/, ''),
  };
}

/** Read under this platform's settings; the products built on its login read them too. */
export function facebookApp(config: AppConfig): FacebookAppSettings {
  return config.platforms.facebook as FacebookAppSettings;
}

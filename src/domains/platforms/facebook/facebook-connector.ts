import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { sealableFacebookSecret } from './facebook-credentials';
import type { FacebookPage } from './facebook-graph';
import type { LoginChannel } from './facebook-login';
import { FacebookLoginConnector } from './facebook-login-connector';
import { MediaReach } from '../meta/media-reach';
import type { DemoAccount } from '../platform';
import { FacebookApi } from './facebook-api';
import { FACEBOOK_LIMITS } from './facebook-limits';

/** Facebook Login's permissions for pages; engagement ones for the first comment. */
export const FACEBOOK_SCOPES = [
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'pages_manage_engagement',
  'business_management',
];

/** Through Facebook Login only: every page the user manages is a channel, with its own token. */
@Injectable()
export class FacebookConnector extends FacebookLoginConnector {
  constructor(api: FacebookApi, reach: MediaReach, @InjectConfig() config: AppConfig) {
    super(
      {
        platform: { name: 'facebook', displayName: 'Facebook' },
        scopes: FACEBOOK_SCOPES,
        pageFields: '',
        limits: FACEBOOK_LIMITS,
        channelsOf: pageChannels,
        noChannels:
          'The Facebook user manages no page Herald may publish to (none was chosen at consent)',
      },
      'Facebook pages are the channels the user chose when connecting; connect the account again to add one',
      api,
      reach,
      config,
    );
  }

  demo(): DemoAccount {
    const page = {
      id: '108000000000009',
      title: 'Herald Demo',
      username: null,
      url: 'https://www.facebook.com/108000000000009',
    };
    const secret = sealableFacebookSecret({
      userId: '100000000000009',
      userToken: randomBytes(32).toString('base64url'),
      channels: { [page.id]: { pageId: page.id, token: randomBytes(32).toString('base64url') } },
    });
    return {
      account: {
        id: '100000000000009',
        title: 'Herald Demo',
        username: null,
        secret,
        limits: FACEBOOK_LIMITS,
      },
      channels: [page],
    };
  }
}

function pageChannels(pages: FacebookPage[]): LoginChannel[] {
  return pages.flatMap((page) =>
    typeof page.id === 'string' && typeof page.access_token === 'string'
      ? [
          {
            id: page.id,
            title: page.name || page.id,
            username: null,
            url: typeof page.link === 'string' ? page.link : `https://www.facebook.com/${page.id}`,
            pageId: page.id,
            pageToken: page.access_token,
          },
        ]
      : [],
  );
}

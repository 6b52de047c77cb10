import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { sealableFacebookSecret } from '../facebook/facebook-credentials';
import type { LoginChannel } from '../facebook/facebook-login';
import { FacebookLoginConnector } from '../facebook/facebook-login-connector';
import { MediaReach } from '../meta/media-reach';
import type { DemoAccount } from '../platform';
import { FACEBOOK_SCOPES } from '../facebook/facebook-connector';
import { InstagramApi, LINKED_ACCOUNT_FIELDS, type LinkedPage } from './instagram-api';
import { INSTAGRAM_LIMITS, instagramProfileUrl } from './instagram-limits';

export const INSTAGRAM_SCOPES = [
  ...FACEBOOK_SCOPES,
  'instagram_basic',
  'instagram_content_publish',
  'instagram_manage_comments',
];

/** Through Facebook Login: each professional account linked to one of the user's pages. */
@Injectable()
export class InstagramConnector extends FacebookLoginConnector<LinkedPage> {
  constructor(api: InstagramApi, reach: MediaReach, @InjectConfig() config: AppConfig) {
    super(
      {
        platform: { name: 'instagram', displayName: 'Instagram' },
        scopes: INSTAGRAM_SCOPES,
        pageFields: LINKED_ACCOUNT_FIELDS,
        limits: INSTAGRAM_LIMITS,
        channelsOf: linkedAccounts,
        noChannels:
          'None of the Facebook user’s pages has an Instagram professional account linked to it',
      },
      'Instagram accounts are those linked to the pages chosen when connecting; connect the account again to add one',
      api,
      reach,
      config,
    );
  }

  demo(): DemoAccount {
    const profile = {
      id: '17841400000000019',
      title: 'herald_demo',
      username: 'herald_demo',
      url: instagramProfileUrl('herald_demo'),
    };
    const secret = sealableFacebookSecret({
      userId: '100000000000019',
      userToken: randomBytes(32).toString('base64url'),
      channels: {
        [profile.id]: { pageId: '108000000000019', token: randomBytes(32).toString('base64url') },
      },
    });
    return {
      account: {
        id: '100000000000019',
        title: 'Herald Demo',
        username: null,
        secret,
        limits: INSTAGRAM_LIMITS,
      },
      channels: [profile],
    };
  }
}

function linkedAccounts(pages: LinkedPage[]): LoginChannel[] {
  return pages.flatMap((page) => {
    const account = page.instagram_business_account;
    if (typeof account?.id !== 'string' || typeof page.id !== 'string') return [];
    if (typeof page.access_token !== 'string') return [];
    const username = typeof account.username === 'string' ? account.username : null;
    return [
      {
        id: account.id,
        title: username ?? account.id,
        username,
        url: username ? instagramProfileUrl(username) : null,
        pageId: page.id,
        pageToken: page.access_token,
      },
    ];
  });
}

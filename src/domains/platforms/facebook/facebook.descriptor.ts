import { FacebookAppVariables, readFacebookApp } from './facebook-app';
import { GRAPH_LOG_MASKS } from '../meta/graph-log-masks';
import { definePlatform } from '../platform-descriptor';

export const FACEBOOK = definePlatform({
  name: 'facebook',
  displayName: 'Facebook',
  errors: { facebook_rejected: 400, facebook_unavailable: 502 },
  // The operator's Facebook app; the products built on Facebook Login connect with it too.
  settings: { schema: FacebookAppVariables, read: readFacebookApp },
  connect: null,
  oauth: { fields: [], example: {} },
  channels: null,
  examples: {
    channelRef: 'facebook:15:108123456789012',
    channelId: 'a Facebook page id',
    channelUrl: 'https://www.facebook.com/herald',
    messageUrl: 'https://www.facebook.com/108123456789012_122100000000000001',
    demoChannelId: '108000000000009',
  },
  aiAudience: 'Facebook pages',
  callMetric: {
    name: 'herald_facebook_request_duration_seconds',
    help: 'Facebook Graph API calls by method and outcome',
    methods: [
      'token',
      'long_lived_token',
      'me',
      'pages',
      'feed',
      'photo',
      'video',
      'comment',
      'comments',
    ],
  },
  logMasks: GRAPH_LOG_MASKS,
  nest: () => (require('./facebook.module') as typeof import('./facebook.module')).FACEBOOK_NEST,
});

import { GRAPH_LOG_MASKS } from '../meta/graph-log-masks';
import { definePlatform } from '../platform-descriptor';

export const INSTAGRAM = definePlatform({
  name: 'instagram',
  displayName: 'Instagram',
  errors: { instagram_rejected: 400, instagram_unavailable: 502 },
  // Connected through Facebook Login, with that platform's app and settings.
  connect: null,
  oauth: { fields: [], example: {} },
  channels: null,
  examples: {
    channelRef: 'instagram:16:17841400000000001',
    channelId: 'an Instagram professional account id',
    channelUrl: 'https://www.instagram.com/herald',
    messageUrl: 'https://www.instagram.com/p/C8aBcDeFgHi/',
    demoChannelId: '17841400000000019',
  },
  aiAudience: 'Instagram professional accounts',
  callMetric: {
    name: 'herald_instagram_request_duration_seconds',
    help: 'Instagram Graph API calls by method and outcome',
    methods: [
      'token',
      'long_lived_token',
      'me',
      'pages',
      'create_container',
      'container_status',
      'publish',
      'permalink',
      'publishing_limit',
      'recent_media',
      'comment',
      'comments',
    ],
  },
  logMasks: GRAPH_LOG_MASKS,
  nest: () => (require('./instagram.module') as typeof import('./instagram.module')).INSTAGRAM_NEST,
});

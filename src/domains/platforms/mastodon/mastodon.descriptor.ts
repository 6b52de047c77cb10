import { definePlatform } from '../platform-descriptor';
import { MASTODON_CONNECT, MASTODON_OAUTH } from './mastodon-connect';

export const MASTODON = definePlatform({
  name: 'mastodon',
  displayName: 'Mastodon',
  errors: { mastodon_rejected: 400, mastodon_unavailable: 502 },
  connect: MASTODON_CONNECT,
  oauth: MASTODON_OAUTH,
  channels: null,
  examples: {
    channelRef: 'mastodon:9:109876543210',
    channelId: 'a Mastodon account id',
    channelUrl: 'https://mastodon.social/@herald',
    messageUrl: 'https://mastodon.social/@herald/111111111111111111',
    demoChannelId: '109000000000000001',
  },
  aiAudience: 'Mastodon accounts',
  callMetric: {
    name: 'herald_mastodon_request_duration_seconds',
    help: 'Mastodon API calls by method and outcome',
    // The API calls Herald makes; anything else is counted as `other` (bounded labels).
    methods: [
      'verify_credentials',
      'instance',
      'upload_media',
      'get_media',
      'post_status',
      'register_app',
      'token',
    ],
  },
  // The access token travels in the Authorization header, never in a path.
  logMasks: [],
  nest: () => (require('./mastodon.module') as typeof import('./mastodon.module')).MASTODON_NEST,
});

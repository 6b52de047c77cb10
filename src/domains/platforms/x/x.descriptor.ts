import { definePlatform } from '../platform-descriptor';
import { readXSettings, XVariables } from './x-settings';

export const X = definePlatform({
  name: 'x',
  displayName: 'X',
  errors: { x_rejected: 400, x_unavailable: 502 },
  settings: { schema: XVariables, read: readXSettings },
  // Accounts connect through OAuth 2.0 only (with PKCE), with the operator's X app.
  connect: null,
  oauth: { fields: [], example: {} },
  channels: null,
  examples: {
    channelRef: 'x:12:1800000000000000001',
    channelId: 'an X user id',
    channelUrl: 'https://x.com/herald',
    messageUrl: 'https://x.com/herald/status/1900000000000000001',
    demoChannelId: '1800000000000000001',
  },
  textUnit: {
    name: 'x',
    description:
      'weighted characters, as X weighs them (twitter-text: every link 23, most CJK characters and emoji 2)',
  },
  aiAudience: 'X (Twitter) accounts',
  callMetric: {
    name: 'herald_x_request_duration_seconds',
    help: 'X API calls by method and outcome',
    methods: ['token', 'users_me', 'media_upload', 'media_metadata', 'create_post', 'user_posts'],
  },
  // Tokens travel in the Authorization header or a POST body, never in a path or query.
  logMasks: [],
  nest: () => (require('./x.module') as typeof import('./x.module')).X_NEST,
});

import { definePlatform } from '../platform-descriptor';
import { BLUESKY_CONNECT } from './bluesky-connect';
import { BlueskyVariables, readBlueskySettings } from './bluesky-settings';
import { XRPC_METHODS } from './bluesky-xrpc-methods';

export const BLUESKY = definePlatform({
  name: 'bluesky',
  displayName: 'Bluesky',
  errors: { bluesky_rejected: 400, bluesky_unavailable: 502 },
  settings: { schema: BlueskyVariables, read: readBlueskySettings },
  connect: BLUESKY_CONNECT,
  channels: null,
  examples: {
    channelRef: 'bluesky:5:did:plc:abcdefghijklmnopqrstuvwx',
    channelId: 'a Bluesky DID',
    channelUrl: 'https://bsky.app/profile/herald.bsky.social',
    messageUrl: 'https://bsky.app/profile/herald.bsky.social/post/3l2s5xxjkzr2a',
    demoChannelId: 'did:plc:heralddemo0000000000000',
  },
  aiAudience: 'Bluesky posts (at most 300 characters)',
  callMetric: {
    name: 'herald_bluesky_request_duration_seconds',
    help: 'Bluesky XRPC calls by method and outcome',
    methods: XRPC_METHODS,
  },
  // Tokens travel in headers, never in paths.
  logMasks: [],
  nest: () => (require('./bluesky.module') as typeof import('./bluesky.module')).BLUESKY_NEST,
});

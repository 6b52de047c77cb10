import { GRAPH_LOG_MASKS } from '../meta/graph-log-masks';
import { definePlatform } from '../platform-descriptor';
import { THREADS_CALLS, THREADS_OAUTH } from './threads-connect';
import { readThreadsSettings, ThreadsVariables } from './threads-settings';

export const THREADS = definePlatform({
  name: 'threads',
  displayName: 'Threads',
  errors: { threads_rejected: 400, threads_unavailable: 502 },
  settings: { schema: ThreadsVariables, read: readThreadsSettings },
  connect: null,
  oauth: THREADS_OAUTH,
  channels: null,
  textUnit: {
    name: 'threads',
    description: 'characters as people see them, each emoji counting its UTF-8 bytes',
  },
  examples: {
    channelRef: 'threads:11:17841400000000001',
    channelId: 'a Threads user id',
    channelUrl: 'https://www.threads.net/@herald',
    messageUrl: 'https://www.threads.net/@herald/post/C8aBcDeFgHi',
    demoChannelId: '17841400000000009',
  },
  aiAudience: 'Threads profiles',
  callMetric: {
    name: 'herald_threads_request_duration_seconds',
    help: 'Threads API calls by method and outcome',
    methods: THREADS_CALLS,
  },
  logMasks: GRAPH_LOG_MASKS,
  nest: () => (require('./threads.module') as typeof import('./threads.module')).THREADS_NEST,
});

import { definePlatform } from '../platform-descriptor';
import { LinkedInVariables, readLinkedInSettings } from './linkedin-settings';

export const LINKEDIN = definePlatform({
  name: 'linkedin',
  displayName: 'LinkedIn',
  errors: { linkedin_rejected: 400, linkedin_unavailable: 502 },
  settings: { schema: LinkedInVariables, read: readLinkedInSettings },
  // Accounts connect through LinkedIn's 3-legged OAuth only, with the operator's app.
  connect: null,
  oauth: { fields: [], example: {} },
  channels: null,
  examples: {
    channelRef: 'linkedin:14:urn:li:person:8KxZ3mQw1a',
    channelId: 'a LinkedIn member or organization URN',
    channelUrl: 'https://www.linkedin.com/company/herald',
    messageUrl: 'https://www.linkedin.com/feed/update/urn:li:share:7300000000000000001',
    demoChannelId: 'urn:li:person:herald-demo',
  },
  aiAudience: 'LinkedIn members and company pages',
  callMetric: {
    name: 'herald_linkedin_request_duration_seconds',
    help: 'LinkedIn API calls by method and outcome',
    methods: [
      'token',
      'userinfo',
      'organization_acls',
      'organization',
      'initialize_upload',
      'upload_image',
      'create_post',
      'author_posts',
      'comment',
      'comments',
    ],
  },
  // Tokens travel in the Authorization header or a POST body, never in a path or query.
  logMasks: [],
  nest: () => (require('./linkedin.module') as typeof import('./linkedin.module')).LINKEDIN_NEST,
});

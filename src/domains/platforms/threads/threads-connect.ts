import type { OAuthMethod } from '../platform-descriptor';

export const THREADS_SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_manage_replies',
];

/** The profile that signs in at Threads is the account; the start body has nothing more. */
export const THREADS_OAUTH: OAuthMethod = { fields: [], example: {} };

export const THREADS_CALLS = [
  'token',
  'long_lived_token',
  'refresh_token',
  'me',
  'create_container',
  'container_status',
  'publish',
  'permalink',
  'publishing_limit',
  'recent_posts',
];

/** D4: API key scopes (D21 adds `webhooks:manage`). */
export const SCOPES = [
  'projects:read',
  'media:write',
  'posts:read',
  'posts:write',
  'posts:publish',
  'usage:read',
  'webhooks:manage',
] as const;

export type Scope = (typeof SCOPES)[number];

/** API key scopes (docs/api-rules.md#api-keys-and-scopes). */
export const SCOPES = [
  'projects:read',
  'media:write',
  'posts:read',
  'posts:write',
  'posts:publish',
  'usage:read',
  'accounts:write',
  'webhooks:manage',
] as const;

export type Scope = (typeof SCOPES)[number];

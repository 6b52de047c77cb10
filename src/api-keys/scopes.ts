/** D4: API key scopes. */
export const SCOPES = [
  'projects:read',
  'media:write',
  'posts:read',
  'posts:write',
  'posts:publish',
  'usage:read',
] as const;

export type Scope = (typeof SCOPES)[number];

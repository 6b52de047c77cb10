export const API_KEY_PREFIX = 'hrld';
/** A test key's posts are test posts. */
export const API_KEY_MODES = ['live', 'test'] as const;
export type ApiKeyMode = (typeof API_KEY_MODES)[number];
export const API_KEY_PUBLIC_LENGTH = 16;
export const API_KEY_SECRET_LENGTH = 40;

const API_KEY_SHAPE = /^hrld_(live|test)_([A-Za-z0-9]{16})\.([A-Za-z0-9]{32,128})$/;

export interface ParsedApiKey {
  mode: ApiKeyMode;
  publicId: string;
  secret: string;
}

/** `hrld_<live|test>_<16 alphanumerics>.<32+ alphanumerics>`; anything else is not a key. */
export function parseApiKey(key: string): ParsedApiKey | null {
  const match = API_KEY_SHAPE.exec(key);
  return match ? { mode: match[1] as ApiKeyMode, publicId: match[2], secret: match[3] } : null;
}

export function formatApiKey(mode: ApiKeyMode, publicId: string, secret: string): string {
  return `${apiKeyPrefix(mode, publicId)}.${secret}`;
}

export function apiKeyPrefix(mode: ApiKeyMode, publicId: string): string {
  return `${API_KEY_PREFIX}_${mode}_${publicId}`;
}

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  return match ? match[1] : null;
}

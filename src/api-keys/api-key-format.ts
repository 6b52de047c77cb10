export const API_KEY_PREFIX = 'hrld';
export const API_KEY_LIVE_MARKER = 'live';
export const API_KEY_PUBLIC_LENGTH = 16;
export const API_KEY_SECRET_LENGTH = 40;

const API_KEY_SHAPE = /^hrld_live_([A-Za-z0-9]{16})\.([A-Za-z0-9]{32,128})$/;

export interface ParsedApiKey {
  publicId: string;
  secret: string;
}

/** D3: `hrld_live_<16 alphanumerics>.<32+ alphanumerics>`; anything else is not a key. */
export function parseApiKey(key: string): ParsedApiKey | null {
  const match = API_KEY_SHAPE.exec(key);
  return match ? { publicId: match[1], secret: match[2] } : null;
}

export function formatApiKey(publicId: string, secret: string): string {
  return `${API_KEY_PREFIX}_${API_KEY_LIVE_MARKER}_${publicId}.${secret}`;
}

/** `Authorization: Bearer <token>` → token, or null for any other shape. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  return match ? match[1] : null;
}

import { DeliveryError } from '../platform';

export interface ThreadsCredentials {
  userId: string;
  accessToken: string;
  /** When Meta gave this token (epoch ms): Threads renews a token only once it is a day old. */
  issuedAtMs: number;
  expiresAtMs: number | null;
}

interface StoredSecret {
  user_id: string;
  access_token: string;
  issued_at_ms: number;
  expires_at_ms: number | null;
}

export function sealableSecret(credentials: ThreadsCredentials): string {
  const stored: StoredSecret = {
    user_id: credentials.userId,
    access_token: credentials.accessToken,
    issued_at_ms: credentials.issuedAtMs,
    expires_at_ms: credentials.expiresAtMs,
  };
  return JSON.stringify(stored);
}

export function readSecret(secret: string): ThreadsCredentials | null {
  let stored: Partial<StoredSecret>;
  try {
    stored = JSON.parse(secret) as Partial<StoredSecret>;
  } catch {
    return null;
  }
  if (typeof stored.user_id !== 'string' || typeof stored.access_token !== 'string') return null;
  return {
    userId: stored.user_id,
    accessToken: stored.access_token,
    issuedAtMs: typeof stored.issued_at_ms === 'number' ? stored.issued_at_ms : 0,
    expiresAtMs: typeof stored.expires_at_ms === 'number' ? stored.expires_at_ms : null,
  };
}

export function credentialsOf(secret: string): ThreadsCredentials {
  const credentials = readSecret(secret);
  if (!credentials)
    throw new DeliveryError('unauthorized', "The account's Threads credentials are unreadable");
  return credentials;
}

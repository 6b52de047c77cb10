import { DeliveryError } from '../platform';

/** Sealed at rest, never logged. `scopes`: what the member granted (reading posts is rare). */
export interface LinkedInCredentials {
  accessToken: string;
  refreshToken: string | null;
  scopes: string[];
}

interface StoredSecret {
  access_token: string;
  refresh_token: string | null;
  scopes: string[];
}

export function sealableSecret(credentials: LinkedInCredentials): string {
  const stored: StoredSecret = {
    access_token: credentials.accessToken,
    refresh_token: credentials.refreshToken,
    scopes: credentials.scopes,
  };
  return JSON.stringify(stored);
}

/** A secret that is not one of ours reaches no one: the account must be connected again. */
export function credentialsOf(secret: string): LinkedInCredentials {
  let stored: Partial<StoredSecret>;
  try {
    stored = JSON.parse(secret) as Partial<StoredSecret>;
  } catch {
    stored = {};
  }
  if (typeof stored.access_token !== 'string')
    throw new DeliveryError('unauthorized', "The account's LinkedIn credentials are unreadable");
  return {
    accessToken: stored.access_token,
    refreshToken: typeof stored.refresh_token === 'string' ? stored.refresh_token : null,
    scopes: Array.isArray(stored.scopes) ? stored.scopes.map(String) : [],
  };
}

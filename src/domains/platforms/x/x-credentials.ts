import { DeliveryError } from '../platform';

/** Sealed at rest, never logged: the user's tokens and who they are. */
export interface XCredentials {
  userId: string;
  username: string;
  accessToken: string;
  refreshToken: string | null;
}

interface StoredSecret {
  user_id: string;
  username: string;
  access_token: string;
  refresh_token: string | null;
}

export function sealableSecret(credentials: XCredentials): string {
  const stored: StoredSecret = {
    user_id: credentials.userId,
    username: credentials.username,
    access_token: credentials.accessToken,
    refresh_token: credentials.refreshToken,
  };
  return JSON.stringify(stored);
}

/** A secret that is not one of ours reaches no one: the account must be connected again. */
export function credentialsOf(secret: string): XCredentials {
  let stored: Partial<StoredSecret>;
  try {
    stored = JSON.parse(secret) as Partial<StoredSecret>;
  } catch {
    stored = {};
  }
  if (
    typeof stored.user_id !== 'string' ||
    typeof stored.username !== 'string' ||
    typeof stored.access_token !== 'string'
  )
    throw new DeliveryError('unauthorized', "The account's X credentials are unreadable");
  return {
    userId: stored.user_id,
    username: stored.username,
    accessToken: stored.access_token,
    refreshToken: typeof stored.refresh_token === 'string' ? stored.refresh_token : null,
  };
}

import { DeliveryError } from '../platform';
import type { MastodonCredentials } from './mastodon-api';

interface StoredSecret {
  instance_url: string;
  access_token: string;
}

export function sealableSecret(credentials: MastodonCredentials): string {
  const stored: StoredSecret = {
    instance_url: credentials.instanceUrl,
    access_token: credentials.accessToken,
  };
  return JSON.stringify(stored);
}

/** A secret that is not one of ours reaches no instance: the account must be connected again. */
export function credentialsOf(secret: string): MastodonCredentials {
  let stored: Partial<StoredSecret>;
  try {
    stored = JSON.parse(secret) as Partial<StoredSecret>;
  } catch {
    stored = {};
  }
  if (typeof stored.instance_url !== 'string' || typeof stored.access_token !== 'string')
    throw new DeliveryError('unauthorized', "The account's Mastodon credentials are unreadable");
  return { instanceUrl: stored.instance_url, accessToken: stored.access_token };
}

import { DeliveryError } from '../platform';

/** Sealed: the user's long-lived token, and each channel's page token (which does not expire). */
export interface FacebookCredentials {
  userId: string;
  userToken: string;
  channels: Record<string, { pageId: string; token: string }>;
}

interface StoredSecret {
  user_id: string;
  user_token: string;
  channels: Record<string, { page_id: string; token: string }>;
}

export function sealableFacebookSecret(credentials: FacebookCredentials): string {
  const channels: StoredSecret['channels'] = {};
  for (const [id, channel] of Object.entries(credentials.channels))
    channels[id] = { page_id: channel.pageId, token: channel.token };
  const stored: StoredSecret = {
    user_id: credentials.userId,
    user_token: credentials.userToken,
    channels,
  };
  return JSON.stringify(stored);
}

export function readFacebookSecret(secret: string): FacebookCredentials | null {
  let stored: Partial<StoredSecret>;
  try {
    stored = JSON.parse(secret) as Partial<StoredSecret>;
  } catch {
    return null;
  }
  if (typeof stored.user_id !== 'string' || typeof stored.user_token !== 'string') return null;
  const channels: FacebookCredentials['channels'] = {};
  for (const [id, channel] of Object.entries(stored.channels ?? {}))
    if (typeof channel?.page_id === 'string' && typeof channel.token === 'string')
      channels[id] = { pageId: channel.page_id, token: channel.token };
  return { userId: stored.user_id, userToken: stored.user_token, channels };
}

/** The page token a channel publishes with; a channel the connection no longer holds is refused. */
export function channelToken(
  secret: string,
  channelId: string,
  displayName: string,
): { pageId: string; token: string } {
  const credentials = readFacebookSecret(secret);
  if (!credentials)
    throw new DeliveryError(
      'unauthorized',
      `The account's ${displayName} credentials are unreadable`,
    );
  const channel = credentials.channels[channelId];
  if (!channel)
    throw new DeliveryError(
      'unauthorized',
      `The ${displayName} connection holds no token for channel ${channelId}; connect the account again`,
    );
  return channel;
}

/** Sealed. */
export interface BlueskyCredentials {
  /** Null for the operator's (BLUESKY_SERVICE_URL). */
  service: string | null;
  identifier: string;
  appPassword: string;
}

export interface BlueskySession {
  accessJwt: string;
  refreshJwt: string;
}

export function sealableCredentials(credentials: BlueskyCredentials): string {
  return JSON.stringify(credentials);
}

export function readCredentials(secret: string): BlueskyCredentials {
  const parsed = JSON.parse(secret) as Partial<BlueskyCredentials>;
  if (typeof parsed.identifier !== 'string' || typeof parsed.appPassword !== 'string')
    throw new Error('Not the credentials of a Bluesky account');
  return {
    service: typeof parsed.service === 'string' ? parsed.service : null,
    identifier: parsed.identifier,
    appPassword: parsed.appPassword,
  };
}

export interface SessionAnswer {
  did: string;
  handle: string;
  accessJwt: string;
  refreshJwt: string;
}

import { MAX_DB_ID } from '../../http/errors/parse-id.pipe';

/** `{platform}:{account_id}:{channel_id}`: a channel's public id and a target's `channel_ref`. */
export function toChannelRef(platform: string, accountId: number, channelId: string): string {
  return `${platform}:${accountId}:${channelId}`;
}

export interface ChannelRefParts {
  platform: string;
  accountId: number;
  channelId: string;
}

/** The channel id is everything after the second colon: it may hold colons itself (a DID). */
const CHANNEL_REF = /^([a-z][a-z0-9_]{0,31}):([1-9]\d{0,9}):(-?[A-Za-z0-9_@.:%-]{1,64})$/;

/** Null when malformed, or an account id past the ids the database holds. */
export function parseChannelRef(ref: string): ChannelRefParts | null {
  const match = CHANNEL_REF.exec(ref);
  if (!match) return null;
  const accountId = Number(match[2]);
  // Sent as an int parameter, a larger id would fail the whole statement, not name nothing.
  if (accountId > MAX_DB_ID) return null;
  return { platform: match[1], accountId, channelId: match[3] };
}

/** `{platform}:{account_id}:{channel_id}`: a channel's public id and a post target's `channel_ref`. */
export function toChannelRef(platform: string, accountId: number, channelId: string): string {
  return `${platform}:${accountId}:${channelId}`;
}

export interface ChannelRefParts {
  platform: string;
  accountId: number;
  channelId: string;
}

const CHANNEL_REF = /^([a-z][a-z0-9_]{0,31}):([1-9]\d{0,9}):(-?[A-Za-z0-9_@.-]{1,64})$/;

export function parseChannelRef(ref: string): ChannelRefParts | null {
  const match = CHANNEL_REF.exec(ref);
  return match ? { platform: match[1], accountId: Number(match[2]), channelId: match[3] } : null;
}

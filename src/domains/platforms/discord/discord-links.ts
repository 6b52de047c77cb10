import type { PlatformChannel, PlatformLimits } from '../platform-answers';

/** Discord's largest upload for a bot without a boosted server: 10 MiB a file. */
export const DISCORD_FILE_MAX_BYTES = 10 * 1024 * 1024;

/**
 * What a post may hold on Discord: one message of 2000 UTF-16 code units with up to 10
 * attachments, images or videos, each within Discord's upload size.
 */
export const DISCORD_LIMITS: PlatformLimits = {
  text_max: 2000,
  text_unit: 'utf16',
  media_max: 10,
  media_kinds: ['image', 'video'],
  media_max_bytes: { image: DISCORD_FILE_MAX_BYTES, video: DISCORD_FILE_MAX_BYTES },
};

const DISCORD_APP_URL = 'https://discord.com/channels';

/** A server channel's link, open to the server's members: `discord.com/channels/<guild>/<channel>`. */
export function discordChannelUrl(guildId: string, channelId: string): string {
  return `${DISCORD_APP_URL}/${guildId}/${channelId}`;
}

/** A message's link: the channel's stored link and the message id. */
export function discordMessageUrl(channel: PlatformChannel, messageId: string): string | null {
  return channel.url ? `${channel.url}/${messageId}` : null;
}

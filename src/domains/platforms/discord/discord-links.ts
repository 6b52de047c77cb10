import type { PlatformChannel, PlatformLimits } from '../platform-answers';

/** For a bot without a boosted server. */
export const DISCORD_FILE_MAX_BYTES = 10 * 1024 * 1024;

/** One message of 2000 UTF-16 code units with up to 10 attachments, images or videos. */
export const DISCORD_LIMITS: PlatformLimits = {
  text_max: 2000,
  text_unit: 'utf16',
  media_max: 10,
  media_kinds: ['image', 'video'],
  media_max_bytes: { image: DISCORD_FILE_MAX_BYTES, video: DISCORD_FILE_MAX_BYTES },
};

const DISCORD_APP_URL = 'https://discord.com/channels';

/** Open to the server's members. */
export function discordChannelUrl(guildId: string, channelId: string): string {
  return `${DISCORD_APP_URL}/${guildId}/${channelId}`;
}

export function discordMessageUrl(channel: PlatformChannel, messageId: string): string | null {
  return channel.url ? `${channel.url}/${messageId}` : null;
}

import { MAX_MEDIA_BYTES } from '../../media/media-kinds';
import type { PlatformChannel, PlatformLimits } from '../platform-answers';

/**
 * What a post may hold on Telegram: a message of 4096 UTF-16 code units, an album of 10 images
 * or videos, each file within the size Herald accepts for media.
 */
export const TELEGRAM_LIMITS: PlatformLimits = {
  text_max: 4096,
  text_unit: 'utf16',
  media_max: 10,
  media_kinds: ['image', 'video'],
  media_max_bytes: { image: MAX_MEDIA_BYTES, video: MAX_MEDIA_BYTES },
};

/** Supergroups and channels have ids `-100<n>`; their private links use `<n>`. */
const SUPERGROUP_PREFIX = '-100';

/** A public chat's link (`t.me/<username>`); a chat without a username has none. */
export function telegramChannelUrl(channel: PlatformChannel): string | null {
  return channel.username ? `https://t.me/${channel.username}` : null;
}

/**
 * A message's link: `t.me/<username>/<id>` in a public chat, `t.me/c/<n>/<id>` in a private
 * supergroup or channel (`-100<n>`, open to its members). Basic groups and private chats have no
 * message links.
 */
export function telegramMessageUrl(channel: PlatformChannel, messageId: string): string | null {
  if (channel.username) return `https://t.me/${channel.username}/${messageId}`;
  const id = channel.channelId;
  if (id.startsWith(SUPERGROUP_PREFIX) && id.length > SUPERGROUP_PREFIX.length)
    return `https://t.me/c/${id.slice(SUPERGROUP_PREFIX.length)}/${messageId}`;
  return null;
}

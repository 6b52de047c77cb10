import { MAX_MEDIA_BYTES } from '../../media/media-kinds';
import type { PlatformChannel, PlatformLimits } from '../platform-answers';

/** 4096 UTF-16 code units, an album of 10 images or videos. */
export const TELEGRAM_LIMITS: PlatformLimits = {
  text_max: 4096,
  text_unit: 'utf16',
  media_max: 10,
  media_kinds: ['image', 'video'],
  media_max_bytes: { image: MAX_MEDIA_BYTES, video: MAX_MEDIA_BYTES },
};

/** Supergroups and channels have ids `-100<n>`; their private links use `<n>`. */
const SUPERGROUP_PREFIX = '-100';

/** Null for a chat without a username. */
export function telegramChannelUrl(channel: PlatformChannel): string | null {
  return channel.username ? `https://t.me/${channel.username}` : null;
}

/** `t.me/<username>/<id>`, or `t.me/c/<n>/<id>` in a private supergroup; null elsewhere. */
export function telegramMessageUrl(channel: PlatformChannel, messageId: string): string | null {
  if (channel.username) return `https://t.me/${channel.username}/${messageId}`;
  const id = channel.channelId;
  if (id.startsWith(SUPERGROUP_PREFIX) && id.length > SUPERGROUP_PREFIX.length)
    return `https://t.me/c/${id.slice(SUPERGROUP_PREFIX.length)}/${messageId}`;
  return null;
}

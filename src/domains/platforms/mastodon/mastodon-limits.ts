import type { MediaToCheck } from '../platform';
import type { PlatformChannel, PlatformLimits } from '../platform-answers';
import type { MastodonInstance } from './mastodon-api';
import { MASTODON_URL_LENGTH } from './mastodon-text';

/** Mastodon's defaults for an instance that does not state them. */
const DEFAULT_IMAGE_BYTES = 16 * 1024 * 1024;
const DEFAULT_VIDEO_BYTES = 99 * 1024 * 1024;

export const MASTODON_LIMITS: PlatformLimits = {
  text_max: 500,
  text_unit: 'graphemes',
  media_max: 4,
  media_kinds: ['image', 'video'],
  media_max_bytes: { image: DEFAULT_IMAGE_BYTES, video: DEFAULT_VIDEO_BYTES },
  url_length: MASTODON_URL_LENGTH,
};

/** Each limit the instance leaves out is the default. */
export function instanceLimits(instance: MastodonInstance | null): PlatformLimits {
  const statuses = instance?.configuration?.statuses;
  const media = instance?.configuration?.media_attachments;
  const defaults = MASTODON_LIMITS.media_max_bytes;
  return {
    ...MASTODON_LIMITS,
    text_max: positive(statuses?.max_characters) ?? MASTODON_LIMITS.text_max,
    media_max: positive(statuses?.max_media_attachments) ?? MASTODON_LIMITS.media_max,
    url_length: positive(statuses?.characters_reserved_per_url) ?? MASTODON_URL_LENGTH,
    media_max_bytes: {
      image: positive(media?.image_size_limit) ?? defaults.image,
      video: positive(media?.video_size_limit) ?? defaults.video,
    },
  };
}

/** The instance refuses a video beside any other medium, so it is refused here first. */
export function mastodonMediaProblem(media: readonly MediaToCheck[]): string | null {
  const videos = media.filter((medium) => medium.type === 'video').length;
  if (videos === 0 || media.length === 1) return null;
  return (
    'A Mastodon status holds images or a single video, never both and never two videos: ' +
    `this post has ${videos} video${videos === 1 ? '' : 's'} among ${media.length} media`
  );
}

export function mastodonChannelUrl(channel: PlatformChannel): string | null {
  return channel.url ?? null;
}

/** When the answer gave none: `<profile url>/<status id>`. */
export function mastodonMessageUrl(channel: PlatformChannel, messageId: string): string | null {
  return channel.url ? `${channel.url}/${encodeURIComponent(messageId)}` : null;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

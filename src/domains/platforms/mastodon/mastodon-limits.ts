import type { MediaToCheck } from '../platform';
import type { PlatformChannel, PlatformLimits } from '../platform-answers';
import type { MastodonInstance } from './mastodon-api';
import { MASTODON_URL_LENGTH } from './mastodon-text';

/** Mastodon's own defaults, for an instance that does not state its limits: 16 MiB and 99 MiB. */
const DEFAULT_IMAGE_BYTES = 16 * 1024 * 1024;
const DEFAULT_VIDEO_BYTES = 99 * 1024 * 1024;

/**
 * What a status may hold on an instance that does not say: 500 characters (graphemes, each link
 * counting 23), 4 media, images or one video, each file within Mastodon's default sizes.
 */
export const MASTODON_LIMITS: PlatformLimits = {
  text_max: 500,
  text_unit: 'graphemes',
  media_max: 4,
  media_kinds: ['image', 'video'],
  media_max_bytes: { image: DEFAULT_IMAGE_BYTES, video: DEFAULT_VIDEO_BYTES },
  url_length: MASTODON_URL_LENGTH,
};

/** The instance's limits as `GET /api/v2/instance` states them; each one it leaves out is the default. */
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

/**
 * Mastodon attaches images, or one video alone, to a status: a video beside any other medium is
 * refused by the instance, so it is refused here first.
 */
export function mastodonMediaProblem(media: readonly MediaToCheck[]): string | null {
  const videos = media.filter((medium) => medium.type === 'video').length;
  if (videos === 0 || media.length === 1) return null;
  return (
    'A Mastodon status holds images or a single video, never both and never two videos: ' +
    `this post has ${videos} video${videos === 1 ? '' : 's'} among ${media.length} media`
  );
}

/** The account's profile, as the instance gave it when the account was connected. */
export function mastodonChannelUrl(channel: PlatformChannel): string | null {
  return channel.url ?? null;
}

/**
 * A status's link when its answer gave none: Mastodon's statuses live under their author's
 * profile, `<profile url>/<status id>`.
 */
export function mastodonMessageUrl(channel: PlatformChannel, messageId: string): string | null {
  return channel.url ? `${channel.url}/${encodeURIComponent(messageId)}` : null;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

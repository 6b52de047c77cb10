import type { MediaToCheck } from '../platform';
import type { PlatformLimits } from '../platform-answers';

/** A caption of 2,200 characters and 30 hashtags; one to ten media, images in JPEG only. */
export const INSTAGRAM_LIMITS: PlatformLimits = {
  text_max: 2_200,
  text_unit: 'utf16',
  media_min: 1,
  media_max: 10,
  media_kinds: ['image', 'video'],
  media_max_bytes: { image: 8 * 1024 * 1024, video: 300 * 1024 * 1024 },
  hashtags_max: 30,
};

/** Instagram takes no image but a JPEG. */
export function instagramMediaProblem(media: readonly MediaToCheck[]): string | null {
  const other = media.filter(
    (medium) => medium.type === 'image' && medium.mimeType !== 'image/jpeg',
  );
  if (other.length === 0) return null;
  const named = other.map((medium) => `${medium.id} (${medium.mimeType})`).join(', ');
  return `Instagram takes images in JPEG only; media ${named} are not`;
}

export function instagramProfileUrl(username: string): string {
  return `https://www.instagram.com/${encodeURIComponent(username)}`;
}

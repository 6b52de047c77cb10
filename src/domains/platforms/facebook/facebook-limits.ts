import type { PlatformLimits } from '../platform-answers';

/** A page post: 63,206 characters (UTF-16), up to 10 images or one video. */
export const FACEBOOK_LIMITS: PlatformLimits = {
  text_max: 63_206,
  text_unit: 'utf16',
  media_max: 10,
  media_kinds: ['image', 'video'],
  media_max_bytes: { image: 10 * 1024 * 1024, video: 1024 * 1024 * 1024 },
};

export function facebookPostUrl(postId: string): string {
  return `https://www.facebook.com/${encodeURIComponent(postId)}`;
}

import { parseTweet } from 'twitter-text';
import type { PlatformLimits } from '../platform-answers';

/** X weighs a post's text with its own twitter-text rules: links 23, most CJK and emoji 2. */
export function xTextLength(text: string): number {
  return parseTweet(text).weightedLength;
}

export const X_LIMITS: PlatformLimits = {
  text_max: 280,
  text_unit: 'x',
  media_max: 4,
  media_kinds: ['image'],
  // X takes images up to 5 MB (GIFs up to 15 MB, which Herald sends as images too).
  media_max_bytes: { image: 5 * 1024 * 1024 },
};

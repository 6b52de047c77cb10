import type { PlatformLimits } from '../platform-answers';

/** LinkedIn's "little text" reserves these: unescaped, they truncate or mangle a post. */
const RESERVED = /[\\|{}@[\]()<>#*_~]/g;

/** The text as LinkedIn's `commentary` must carry it to appear exactly as written. */
export function littleText(text: string): string {
  return text.replace(RESERVED, (char) => `\\${char}`);
}

export const LINKEDIN_LIMITS: PlatformLimits = {
  text_max: 3_000,
  text_unit: 'utf16',
  media_max: 10,
  media_kinds: ['image'],
  // LinkedIn's image API takes files up to 36,152,320 pixels; Herald bounds their bytes at 10 MB.
  media_max_bytes: { image: 10 * 1024 * 1024 },
};

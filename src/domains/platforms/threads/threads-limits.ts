import type { PlatformChannel, PlatformLimits } from '../platform-answers';

export const THREADS_LIMITS: PlatformLimits = {
  text_max: 500,
  text_unit: 'threads',
  media_max: 20,
  media_kinds: ['image', 'video'],
  media_max_bytes: { image: 8 * 1024 * 1024, video: 1024 * 1024 * 1024 },
  links_max: 5,
};

export const CAROUSEL_MIN = 2;

const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** Characters as people see them, each emoji counting its UTF-8 bytes, as Threads counts. */
export function threadsTextLength(text: string): number {
  let length = 0;
  for (const { segment } of segmenter.segment(text))
    length += EMOJI.test(segment) ? Buffer.byteLength(segment, 'utf8') : 1;
  return length;
}

const LINK = /\b(?:https?:\/\/|www\.)[^\s<>"]+/giu;
const TRAILING = /[.,;:!?)\]}'»”]+$/u;

/** Every different link in the text, as Threads counts them against its limit of five. */
export function threadsLinks(text: string): string[] {
  const links = new Set<string>();
  for (const [match] of text.matchAll(LINK)) {
    const link = match.replace(TRAILING, '');
    links.add(link.replace(/^https?:\/\//i, '').toLowerCase());
  }
  return [...links];
}

export function threadsProfileUrl(username: string): string {
  return `https://www.threads.net/@${encodeURIComponent(username)}`;
}

export function threadsChannelUrl(channel: PlatformChannel): string | null {
  if (channel.url) return channel.url;
  return channel.username ? threadsProfileUrl(channel.username) : null;
}

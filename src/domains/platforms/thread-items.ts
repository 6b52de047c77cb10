import type { DeliveryStep, OutgoingMedia, Platform, PlatformPublisher } from './platform';
import type { PlatformLimits } from './platform-answers';
import { splitText } from './thread-split';

/** A post's `thread` holds at most this many items after the post itself. */
export const MAX_THREAD_ITEMS = 24;

export const MAX_MESSAGES_PER_TARGET = MAX_THREAD_ITEMS + 1;

export interface ThreadItem<Media> {
  text: string;
  media: readonly Media[];
}

export interface ThreadContent<Media> {
  items: readonly ThreadItem<Media>[];
  split: boolean;
}

/** Where an item's text was cut: its parts, or null when it cannot be cut to fit. */
export interface CutItem<Media> {
  item: number;
  parts: string[] | null;
  media: readonly Media[];
}

export function textFits(platform: Platform, limits: PlatformLimits, text: string): boolean {
  if (platform.measureText(text, limits) > limits.text_max) return false;
  return limits.text_max_bytes === undefined || Buffer.byteLength(text) <= limits.text_max_bytes;
}

/** With `split`, an item over the limit is cut, its media (and a caption's limit) on the first part. */
export function cutItems<Media>(
  platform: Platform,
  limits: PlatformLimits,
  content: ThreadContent<Media>,
): CutItem<Media>[] {
  return content.items.map(({ text, media }, item) => {
    const captioned = media.length > 0 && platform.captionMax !== undefined;
    const fits = (part: string, index: number) =>
      textFits(platform, limits, part) &&
      !(captioned && index === 0 && platform.measureText(part, limits) > platform.captionMax!);
    const parts =
      content.split && !fits(text, 0) ? splitText(text, fits, MAX_MESSAGES_PER_TARGET) : [text];
    return { item, media, parts };
  });
}

/** The messages of one target in order; an item that cannot be cut goes whole (and is refused). */
export function threadMessages<Media>(
  platform: Platform,
  limits: PlatformLimits,
  content: ThreadContent<Media>,
): ThreadItem<Media>[] {
  return cutItems(platform, limits, content).flatMap(({ parts, media }, i) =>
    (parts ?? [content.items[i].text]).map((text, n) => ({ text, media: n === 0 ? media : [] })),
  );
}

/** The publisher's steps for every message; the first step of each after the first is a reply. */
export function planThread(
  publisher: PlatformPublisher,
  messages: readonly ThreadItem<OutgoingMedia>[],
): DeliveryStep[] {
  return messages.flatMap(({ text, media }, i) =>
    publisher
      .plan(text, [...media])
      .map((step, n) => (i > 0 && n === 0 ? { ...step, reply: true } : step)),
  );
}

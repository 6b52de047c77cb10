import { RichText } from '@atproto/api';
import type { PlatformChannel, PlatformLimits } from '../platform-answers';

/**
 * What a post may hold on Bluesky: 300 graphemes and 3000 UTF-8 bytes of text, up to 4 images of
 * at most 1,000,000 bytes each; no video.
 */
export const BLUESKY_LIMITS: PlatformLimits = {
  text_max: 300,
  text_unit: 'graphemes',
  text_max_bytes: 3000,
  media_max: 4,
  media_kinds: ['image'],
  media_max_bytes: { image: 1_000_000 },
};

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** User-perceived characters, as Bluesky counts a post's length. */
export function graphemeLength(text: string): number {
  let count = 0;
  for (const _ of graphemes.segment(text)) count++;
  return count;
}

/** A link facet: where the link is in the text, in UTF-8 bytes, and where it goes. */
export interface LinkFacet {
  index: { byteStart: number; byteEnd: number };
  features: { $type: 'app.bsky.richtext.facet#link'; uri: string }[];
}

/**
 * A facet for every http(s) link in the text, its offsets in UTF-8 bytes, found as Bluesky's own
 * apps find them (RichText). Mentions and tags are left as plain text: they would need the
 * network to resolve.
 */
export function linkFacets(text: string): LinkFacet[] {
  const rich = new RichText({ text });
  rich.detectFacetsWithoutResolution();
  return (rich.facets ?? []).flatMap((facet) => {
    const links = facet.features.filter(
      (feature): feature is { $type: 'app.bsky.richtext.facet#link'; uri: string } =>
        feature.$type === 'app.bsky.richtext.facet#link' &&
        typeof (feature as { uri?: unknown }).uri === 'string' &&
        /^https?:\/\//i.test((feature as { uri: string }).uri),
    );
    if (links.length === 0) return [];
    return [
      {
        index: { byteStart: facet.index.byteStart, byteEnd: facet.index.byteEnd },
        features: links.map((link) => ({ $type: link.$type, uri: link.uri })),
      },
    ];
  });
}

/** A profile's link, by its handle. */
export function blueskyChannelUrl(channel: PlatformChannel): string | null {
  return channel.username ? `https://bsky.app/profile/${channel.username}` : null;
}

/** A post's link: the profile's, then `post/<record key>` (the last part of its at:// URI). */
export function blueskyPostUrl(channel: PlatformChannel, uri: string): string | null {
  const rkey = uri.split('/').at(-1);
  const profile = channel.username ?? channel.channelId;
  return rkey ? `https://bsky.app/profile/${profile}/post/${rkey}` : null;
}

import { RichText } from '@atproto/api';
import type { PlatformChannel, PlatformLimits } from '../platform-answers';

/** The lexicon's `maxSize` of an embedded image. */
export const BLUESKY_IMAGE_MAX_BYTES = 2_000_000;

/** 300 graphemes and 3000 UTF-8 bytes, up to 4 images within the lexicon's size; no video. */
export const BLUESKY_LIMITS: PlatformLimits = {
  text_max: 300,
  text_unit: 'graphemes',
  text_max_bytes: 3000,
  media_max: 4,
  media_kinds: ['image'],
  media_max_bytes: { image: BLUESKY_IMAGE_MAX_BYTES },
};

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** User-perceived characters, as Bluesky counts a post's length. */
export function graphemeLength(text: string): number {
  let count = 0;
  for (const _ of graphemes.segment(text)) count++;
  return count;
}

export type FacetFeature =
  | { $type: 'app.bsky.richtext.facet#link'; uri: string }
  | { $type: 'app.bsky.richtext.facet#tag'; tag: string }
  | { $type: 'app.bsky.richtext.facet#mention'; did: string };

/** Offsets in UTF-8 bytes. */
export interface Facet {
  index: { byteStart: number; byteEnd: number };
  features: FacetFeature[];
}

/** As Bluesky's RichText finds them, in order; a handle that does not resolve stays text. */
export async function textFacets(
  text: string,
  resolve: (handle: string) => Promise<string | null>,
): Promise<Facet[]> {
  const rich = new RichText({ text });
  rich.detectFacetsWithoutResolution();
  const facets: Facet[] = [];
  for (const facet of rich.facets ?? []) {
    const features: FacetFeature[] = [];
    for (const feature of facet.features as { $type: string; [field: string]: unknown }[]) {
      if (feature.$type === 'app.bsky.richtext.facet#link') {
        const uri = feature.uri as string;
        if (/^https?:\/\//i.test(uri)) features.push({ $type: feature.$type, uri });
      } else if (feature.$type === 'app.bsky.richtext.facet#tag') {
        features.push({ $type: feature.$type, tag: feature.tag as string });
      } else if (feature.$type === 'app.bsky.richtext.facet#mention') {
        // Before resolution RichText holds the handle where the DID goes.
        const did = await resolve(feature.did as string);
        if (did) features.push({ $type: feature.$type, did });
      }
    }
    if (features.length > 0)
      facets.push({
        index: { byteStart: facet.index.byteStart, byteEnd: facet.index.byteEnd },
        features,
      });
  }
  return facets.sort((a, b) => a.index.byteStart - b.index.byteStart);
}

export function blueskyChannelUrl(channel: PlatformChannel): string | null {
  return channel.username ? `https://bsky.app/profile/${channel.username}` : null;
}

/** The profile's link, then `post/<record key>` (the last part of its at:// URI). */
export function blueskyPostUrl(channel: PlatformChannel, uri: string): string | null {
  const rkey = uri.split('/').at(-1);
  const profile = channel.username ?? channel.channelId;
  return rkey ? `https://bsky.app/profile/${profile}/post/${rkey}` : null;
}

import { lexicons } from '@atproto/api';
import { BLUESKY_IMAGE_MAX_BYTES, BLUESKY_LIMITS, textFacets } from './bluesky-text';

describe('Bluesky text and limits', () => {
  it("takes images as large as the lexicon's maxSize of an embedded image", () => {
    const image = lexicons.getDefOrThrow('app.bsky.embed.images#image') as unknown as {
      properties: { image: { maxSize: number } };
    };
    expect(BLUESKY_IMAGE_MAX_BYTES).toBe(image.properties.image.maxSize);
    expect(BLUESKY_LIMITS.media_max_bytes.image).toBe(2_000_000);
  });

  it('finds links, tags and resolved mentions in UTF-8 bytes, in the order of the text', async () => {
    const text = '#первый @known.test and @unknown.test see https://a.test/x #last';
    const bytes = Buffer.from(text);
    const span = (s: string) => {
      const start = bytes.indexOf(Buffer.from(s));
      return { byteStart: start, byteEnd: start + Buffer.byteLength(s) };
    };
    const asked: string[] = [];
    const facets = await textFacets(text, (handle) => {
      asked.push(handle);
      return Promise.resolve(handle === 'known.test' ? 'did:plc:known' : null);
    });
    expect(asked).toEqual(['known.test', 'unknown.test']);
    expect(facets).toEqual([
      {
        index: span('#первый'),
        features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'первый' }],
      },
      {
        index: span('@known.test'),
        features: [{ $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:known' }],
      },
      {
        index: span('https://a.test/x'),
        features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://a.test/x' }],
      },
      { index: span('#last'), features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'last' }] },
    ]);
  });
});

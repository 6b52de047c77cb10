import type { MediaToCheck } from '../platform';
import { rateLimitWaitMs } from './mastodon-api';
import {
  instanceLimits,
  MASTODON_LIMITS,
  mastodonMediaProblem,
  mastodonMessageUrl,
} from './mastodon-limits';

describe("an instance's limits", () => {
  it('are the defaults when the instance states none (or no v2 instance route)', () => {
    expect(instanceLimits(null)).toEqual(MASTODON_LIMITS);
    expect(instanceLimits({ configuration: {} })).toEqual({
      text_max: 500,
      text_unit: 'graphemes',
      media_max: 4,
      media_kinds: ['image', 'video'],
      media_max_bytes: { image: 16_777_216, video: 103_809_024 },
      url_length: 23,
    });
  });

  it('are read from configuration.statuses and configuration.media_attachments', () => {
    expect(
      instanceLimits({
        configuration: {
          statuses: {
            max_characters: 1000,
            max_media_attachments: 6,
            characters_reserved_per_url: 30,
          },
          media_attachments: { image_size_limit: 10_485_760, video_size_limit: 41_943_040 },
        },
      }),
    ).toMatchObject({
      text_max: 1000,
      media_max: 6,
      url_length: 30,
      media_max_bytes: { image: 10_485_760, video: 41_943_040 },
    });
  });

  it('keep the default for a value that is not a positive integer', () => {
    const limits = instanceLimits({
      configuration: { statuses: { max_characters: 0, max_media_attachments: -1 } },
    } as never);
    expect(limits.text_max).toBe(500);
    expect(limits.media_max).toBe(4);
  });
});

describe('a status holds images or one video', () => {
  const m = (type: 'image' | 'video', id: number): MediaToCheck => ({
    id,
    type,
    mimeType: type === 'image' ? 'image/png' : 'video/mp4',
    filename: `${id}.${type === 'image' ? 'png' : 'mp4'}`,
    sizeBytes: 10,
  });

  it.each([
    [[m('image', 1)], null],
    [[m('video', 1)], null],
    [[m('image', 1), m('image', 2), m('image', 3), m('image', 4)], null],
  ])('accepts %j', (media, problem) => expect(mastodonMediaProblem(media)).toBe(problem));

  it('refuses a video beside an image, and two videos', () => {
    expect(mastodonMediaProblem([m('image', 1), m('video', 2)])).toBe(
      'A Mastodon status holds images or a single video, never both and never two videos: ' +
        'this post has 1 video among 2 media',
    );
    expect(mastodonMediaProblem([m('video', 1), m('video', 2)])).toContain('2 videos among 2');
  });
});

describe('a 429 waits until X-RateLimit-Reset', () => {
  const now = Date.parse('2026-11-26T01:00:00.000Z');

  it("counts from the answer's Date, so a clock apart from the instance's does not shorten it", () => {
    expect(
      rateLimitWaitMs(
        {
          'x-ratelimit-reset': '2026-11-26T01:05:00.000000Z',
          date: 'Thu, 26 Nov 2026 01:03:00 GMT',
        },
        now,
      ),
    ).toBe(120_000);
  });

  it('counts from now without a Date; at least a second; a minute without a readable reset', () => {
    expect(rateLimitWaitMs({ 'x-ratelimit-reset': '2026-11-26T01:00:30Z' }, now)).toBe(30_000);
    expect(rateLimitWaitMs({ 'x-ratelimit-reset': '2026-11-26T00:59:00Z' }, now)).toBe(1_000);
    expect(rateLimitWaitMs({}, now)).toBe(60_000);
    expect(rateLimitWaitMs({ 'x-ratelimit-reset': 'soon' }, now)).toBe(60_000);
  });
});

describe("a status's link", () => {
  it("is under its author's profile when the answer gave none", () => {
    const channel = { channelId: '1', username: 'ann', url: 'https://social.example/@ann' };
    expect(mastodonMessageUrl(channel, '1131')).toBe('https://social.example/@ann/1131');
    expect(mastodonMessageUrl({ ...channel, url: null }, '1131')).toBeNull();
  });
});

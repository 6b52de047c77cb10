import { toPostCreated, toPostListItem, toPostObject } from './posts.mapper';
import type { PostWithDetails } from './post-rows';

const post: PostWithDetails = {
  id: 7,
  project_id: 3,
  created_by_user_id: 1,
  text: 'Hello',
  status: 'failed',
  scheduled_at: '2026-12-01 09:00:00.5+00',
  published_at: null,
  publish_attempt: 2,
  created_at: '2026-11-22 07:47:01.123456+00',
  updated_at: '2026-11-22 08:00:00.000001+00',
  test: true,
  thread: [{ text: 'More', media_ids: [4] }],
  split_long_text: false,
  media_ids: [5, 4],
  media: [
    {
      id: 5,
      type: 'video',
      mime_type: 'video/mp4',
      alt_text: null,
      storage_path: 'projects/3/2026/11/b.mp4',
    },
    {
      id: 4,
      type: 'image',
      mime_type: 'image/png',
      alt_text: 'A',
      storage_path: 'projects/3/2026/11/a.png',
    },
  ],
  targets: [
    {
      id: 1,
      post_id: 7,
      channel_id: 9,
      platform: 'examplenet',
      account_id: 12,
      chat_id: '-1001',
      position: 0,
      status: 'published',
      error_code: null,
      error_message: null,
      message_ids: [100],
      messages: [{ id: '100', url: 'https://example.invalid/examplenet/-1001/100' }],
      steps_done: 1,
      published_at: '2026-12-01 09:00:00.612345+00',
      account_removed: false,
    },
    {
      id: 2,
      post_id: 7,
      channel_id: 10,
      platform: 'examplenet',
      account_id: 12,
      chat_id: '-1002',
      position: 1,
      status: 'failed',
      error_code: 'account_needs_reconnect',
      error_message: 'Examplenet 401: Unauthorized',
      message_ids: [],
      messages: [],
      steps_done: 0,
      published_at: null,
      account_removed: false,
    },
  ],
};

describe('posts mappers', () => {
  it('creation response: exactly its fields, microsecond UTC timestamps', () => {
    expect(toPostCreated(post)).toEqual({
      id: 7,
      status: 'failed',
      project_id: 3,
      text: 'Hello',
      scheduled_at: '2026-12-01T09:00:00.500000',
      created_at: '2026-11-22T07:47:01.123456',
      test: true,
    });
  });

  it('list item: platform and channel_ids from the targets, per-target state and errors', () => {
    expect(toPostListItem(post)).toEqual({
      id: 7,
      status: 'failed',
      text: 'Hello',
      platform: 'examplenet',
      channel_ids: ['-1001', '-1002'],
      scheduled_at: '2026-12-01T09:00:00.500000',
      published_at: null,
      created_at: '2026-11-22T07:47:01.123456',
      test: true,
      project_id: 3,
      media_ids: [5, 4],
      thread: [{ text: 'More', media_ids: [4] }],
      split_long_text: false,
      targets: [
        {
          channel_ref: 'examplenet:12:-1001',
          channel_id: '-1001',
          status: 'published',
          error: null,
          message_ids: [100],
          url: 'https://example.invalid/examplenet/-1001/100',
          messages: [{ id: '100', url: 'https://example.invalid/examplenet/-1001/100' }],
          published_at: '2026-12-01T09:00:00.612345',
        },
        {
          channel_ref: 'examplenet:12:-1002',
          channel_id: '-1002',
          status: 'failed',
          error: { code: 'account_needs_reconnect', message: 'Examplenet 401: Unauthorized' },
          message_ids: [],
          url: null,
          messages: [],
          published_at: null,
        },
      ],
    });
  });

  it('a target not yet published has no url, though its messages so far are listed', () => {
    const album = [
      { id: '100', url: 'https://t.me/herald_news/100' },
      { id: '101', url: 'https://t.me/herald_news/101' },
    ];
    const [pending] = toPostListItem({
      ...post,
      targets: [{ ...post.targets[0], status: 'pending', messages: album, published_at: null }],
    }).targets;
    expect(pending).toMatchObject({ status: 'pending', url: null, messages: album });
  });

  it('a message recorded with a content hash for replies is answered with its id and url only', () => {
    const recorded = { id: 'at://did:plc:a/app.bsky.feed.post/3l', url: null, cid: 'bafyrei' };
    const [target] = toPostListItem({
      ...post,
      targets: [{ ...post.targets[0], messages: [recorded] }],
    }).targets;
    expect(target.messages).toEqual([{ id: recorded.id, url: null }]);
  });

  it('a post without targets has platform null', () => {
    expect(toPostListItem({ ...post, targets: [] })).toMatchObject({
      platform: null,
      channel_ids: [],
    });
  });

  it('post object: every list item field, updated_at, media in album order with its URL', () => {
    const object = toPostObject(post, (path) => `https://h.test/media/${path}`);
    expect(object).toEqual({
      ...toPostListItem(post),
      updated_at: '2026-11-22T08:00:00.000001',
      media: [
        {
          id: 5,
          type: 'video',
          mime_type: 'video/mp4',
          alt_text: null,
          url: 'https://h.test/media/projects/3/2026/11/b.mp4',
        },
        {
          id: 4,
          type: 'image',
          mime_type: 'image/png',
          alt_text: 'A',
          url: 'https://h.test/media/projects/3/2026/11/a.png',
        },
      ],
    });
  });
});

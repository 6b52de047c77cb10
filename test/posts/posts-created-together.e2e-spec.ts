import { PostInserts } from '../../src/domains/posts/post-inserts.repository';
import type { PostRow } from '../../src/domains/posts/post-rows';
import { Factory, SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { newDraft, postRulesWorld } from '../support/factories/new-post';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { TestApp } from '../support/test-app';

/**
 * Posts created at the same moment go to PostgreSQL in one insert (one commit and one set of
 * foreign-key locks for several posts), and each is still checked on its own against the post
 * rules (docs/api-rules.md#post-rules): one
 * post's unknown channel, foreign media or reconnecting account refuses that post only. (A
 * statement that fails for one of them: posts-concurrent-changes.e2e-spec.ts.)
 */
describe('Posts created at the same moment, each checked on its own', () => {
  let world: TelegramWorld;
  let t: TestApp;
  let make: Factory;
  let owner: SignedInUser;
  let key: string;
  let project: TestProject;
  let channel: TestChannel;
  let other: TestChannel;
  let reconnecting: TestChannel;
  let strangersChannel: TestChannel;
  let strangersMedia: number;
  let image: number;
  let video: number;

  beforeAll(async () => {
    world = await startWithTelegram({ RATE_LIMIT_CREATE_POST: '10000' });
    ({ t, make } = world);
    ({
      owner,
      project,
      key,
      channel,
      other,
      reconnecting,
      image,
      video,
      strangersChannel,
      strangersMedia,
    } = await postRulesWorld(t, make, 'Created together'));
  });

  afterAll(async () => {
    await world?.close();
  });

  const create = (body: object) =>
    t.http
      .post(`/api/public/v1/projects/${project.id}/posts`)
      .set('Authorization', `Bearer ${key}`)
      .send(body);

  /** What is stored of a post: its row, its targets' channels and its media, in order. */
  async function stored(postId: number) {
    const post = await t.db.query<{ text: string; status: string; scheduled_at: Date | null }>(
      'SELECT text, status, scheduled_at FROM posts WHERE id = $1',
      [postId],
    );
    const targets = await t.db.query<{ channel_id: number; position: number }>(
      'SELECT channel_id, position FROM post_targets WHERE post_id = $1 ORDER BY position',
      [postId],
    );
    const media = await t.db.query<{ media_asset_id: number; position: number }>(
      'SELECT media_asset_id, position FROM post_media WHERE post_id = $1 ORDER BY position',
      [postId],
    );
    return { post: post.rows[0], targets: targets.rows, media: media.rows };
  }

  const postsWithText = async (text: string) =>
    (
      await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM posts WHERE text = $1', [
        text,
      ])
    ).rows[0].n;

  it('answers each request for its own post: the valid ones stored whole, the others refused and not stored', async () => {
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const valid = [
      { text: 'together 1', targets: [channel, other], media_ids: [image, video] },
      { text: 'together 2', targets: [other, channel], media_ids: [video, image] },
      { text: 'together 3', targets: [other], media_ids: [] },
      { text: 'together 4', targets: [], media_ids: [image] },
      { text: 'together 5', targets: [channel], media_ids: [], scheduled_at: later },
      { text: 'together 6', targets: [reconnecting], media_ids: [] },
    ];
    const refused = [
      {
        body: { text: 'refused 1', targets: [{ channel_ref: strangersChannel.id }] },
        code: 'channel_not_found',
      },
      { body: { text: 'refused 2', media_ids: [strangersMedia] }, code: 'media_not_found' },
      {
        body: {
          text: 'refused 3',
          targets: [{ channel_ref: reconnecting.id }],
          scheduled_at: later,
        },
        code: 'channel_needs_reconnect',
      },
    ];
    const answers = await Promise.all([
      ...valid.map(({ targets, ...rest }) =>
        create({ ...rest, targets: targets.map((c) => ({ channel_ref: c.id })) }),
      ),
      ...refused.map(({ body }) => create(body)),
    ]);

    for (const [i, want] of valid.entries()) {
      const res = answers[i];
      expect(res.status).toBe(201);
      const { post, targets, media } = await stored((res.body as { id: number }).id);
      expect(post.text).toBe(want.text);
      expect(post.status).toBe(want.scheduled_at ? 'scheduled' : 'draft');
      expect(post.scheduled_at?.toISOString() ?? null).toBe(want.scheduled_at ?? null);
      expect(targets).toEqual(
        await Promise.all(
          want.targets.map(async (c, position) => ({
            channel_id: await make.channelRowId(c),
            position,
          })),
        ),
      );
      expect(media).toEqual(
        want.media_ids.map((id, position) => ({ media_asset_id: id, position })),
      );
    }
    for (const [i, { body, code }] of refused.entries()) {
      const res = answers[valid.length + i];
      expect(res.status).toBe(400);
      expect((res.body as { error: { code: string } }).error.code).toBe(code);
      expect(await postsWithText(body.text)).toBe(0);
    }
  });

  const draft = (text: string, targets: TestChannel[] = []) =>
    newDraft(project, owner, text, targets);

  it('inserts the posts that come while one is in flight in one statement, each with its own checks', async () => {
    const posts = t.app.get(PostInserts);
    // The first goes at once, alone; the other four wait for it and then go together.
    const [first, ...together] = await Promise.all([
      posts.insertPost(draft('alone')),
      posts.insertPost(draft('batched 1', [channel])),
      posts.insertPost(draft('batched 2', [strangersChannel])),
      posts.insertPost(draft('batched 3', [other, channel])),
      posts.insertPost(draft('batched 4')),
    ]);
    expect(first?.text).toBe('alone');
    expect(together.map((p) => p?.text ?? null)).toEqual([
      'batched 1',
      null,
      'batched 3',
      'batched 4',
    ]);
    const inserted = together.filter((p): p is PostRow => p !== null);
    // One statement is one transaction: its posts share now(), which the lone one does not.
    expect(new Set(inserted.map((p) => String(p.created_at))).size).toBe(1);
    expect(inserted[0].created_at).not.toEqual(first!.created_at);
    expect(new Set([first!.id, ...inserted.map((p) => p.id)]).size).toBe(4);
    expect((await stored(inserted[0].id)).targets).toEqual([
      { channel_id: await make.channelRowId(channel), position: 0 },
    ]);
    expect((await stored(inserted[1].id)).targets).toEqual([
      { channel_id: await make.channelRowId(other), position: 0 },
      { channel_id: await make.channelRowId(channel), position: 1 },
    ]);
    expect((await stored(inserted[2].id)).targets).toEqual([]);
    expect(await postsWithText('batched 2')).toBe(0);
  });
});

import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { projectApi } from '../support/factories/project-api';
import {
  FACEBOOK_APP,
  startWithFacebook,
  type FacebookConnection,
  type FacebookScene,
  type FacebookWorld,
} from '../support/factories/facebook-world';
import { runWaitingNow, waitForPostStatus } from '../support/publication';
import type { FacebookGraphServer } from '../support/stand-ins/facebook-graph-server';
import type { TestApp } from '../support/test-app';

interface TargetAnswer {
  status: string;
  error: { code: string; message: string } | null;
  messages: { id: string; url: string | null }[];
  url: string | null;
}

const MINUTE = 60_000;

/** Instagram professional accounts through Facebook Login and containers, end to end over HTTP. */
describe('Instagram', () => {
  let world: FacebookWorld;
  let t: TestApp;
  let graph: FacebookGraphServer;
  let scene: FacebookScene;
  let user: FacebookConnection;
  let jpeg: number;
  const { api, upload } = projectApi(() => ({ t, project: scene.project, key: scene.key }));

  beforeAll(async () => {
    world = await startWithFacebook({ PUBLICATION_RETRY_BASE_MS: '50' });
    ({ t, graph } = world);
    scene = await world.scene('Instagram');
    user = await scene.connect('instagram', 2);
    jpeg = await upload('sample.jpg');
  });

  afterAll(async () => {
    await world?.close();
  });

  const targetOf = async (postId: number) =>
    ((await api('get', `/posts/${postId}`).expect(200)).body.targets as TargetAnswer[])[0];
  const settled = async (postId: number) => {
    await waitForPostStatus(t, postId, ['published', 'failed'], 30_000);
    return targetOf(postId);
  };
  const mediaOf = (id: string) => graph.media.find((made) => made.id === id)!;
  const refused = async (body: Record<string, unknown>, ref = user.refs[0]) =>
    (
      await api('post', '/posts')
        .send({ ...body, targets: [{ channel_ref: ref }], publish_now: true })
        .expect(400)
    ).body.error as { code: string; message: string; details: { code: string; field: string }[] };

  describe('connecting', () => {
    it('asks for the Instagram permissions; each account linked to a page is a channel', async () => {
      const res = await api('post', '/connections').send({ platform: 'instagram' }).expect(201);
      const url = new URL(res.body.authorize_url as string);
      expect(url.searchParams.get('client_id')).toBe(FACEBOOK_APP.id);
      expect(url.searchParams.get('redirect_uri')).toBe(
        `${world.publicBaseUrl}/api/oauth/instagram/callback`,
      );
      expect(url.searchParams.get('scope')!.split(',')).toEqual(
        expect.arrayContaining([
          'instagram_basic',
          'instagram_content_publish',
          'instagram_manage_comments',
          'pages_show_list',
        ]),
      );
      const channels = (await api('get', '/channels').expect(200)).body.items as {
        id: string;
        title: string;
        username: string;
        url: string;
        limits: Record<string, unknown>;
      }[];
      const mine = channels.filter((item) => user.refs.includes(item.id));
      expect(mine.map((item) => [item.id, item.username, item.url])).toEqual(
        user.pages.map((page, i) => [
          user.refs[i],
          page.instagram!.username,
          `https://www.instagram.com/${page.instagram!.username}`,
        ]),
      );
      expect(mine[0].limits).toMatchObject({
        text_max: 2200,
        media_min: 1,
        media_max: 10,
        hashtags_max: 30,
      });
      expect(graph.callsOf('pages').slice(-1)[0].params.fields).toContain(
        'instagram_business_account{id,username}',
      );
    });

    it('a page without a linked account adds no channel', async () => {
      const other = await world.connect(
        scene.owner,
        scene.project,
        'instagram',
        { id: '100000000000888', name: 'Mixed pages' },
        [
          { id: '108000000000881', name: 'Plain page' },
          {
            id: '108000000000882',
            name: 'Linked page',
            instagram: { id: '17841000000000882', username: 'linked' },
          },
        ],
      );
      const { rows } = await t.db.query(
        'SELECT channel_id FROM channels WHERE account_id = $1 ORDER BY channel_id',
        [other.id],
      );
      expect(rows.map((row) => row.channel_id)).toEqual(['17841000000000882']);
    });
  });

  describe('what Instagram takes, checked before anything is stored', () => {
    it('a post without media is media_required', async () => {
      const error = await refused({ text: 'Words alone' });
      expect(error.code).toBe('media_required');
      expect(error.details[0].field).toBe('media_ids');
    });

    it('a PNG, GIF or WebP is media_not_supported, naming Instagram', async () => {
      const png = await upload('sample.png');
      const error = await refused({ text: 'A PNG', media_ids: [png] });
      expect(error.code).toBe('media_not_supported');
      expect(error.message).toMatch(/Instagram takes images in JPEG only/);
    });

    it('31 hashtags is too_many_hashtags; 2,201 characters is text_too_long', async () => {
      const tags = Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(' ');
      expect((await refused({ text: tags, media_ids: [jpeg] })).code).toBe('too_many_hashtags');
      const thirty = Array.from({ length: 30 }, (_, i) => `#tag${i}`).join(' ');
      await api('post', '/posts/validate')
        .send({ text: thirty, media_ids: [jpeg], targets: [{ channel_ref: user.refs[0] }] })
        .expect(200)
        .expect((res) => expect(res.body.valid).toBe(true));
      expect((await refused({ text: 'x'.repeat(2201), media_ids: [jpeg] })).code).toBe(
        'text_too_long',
      );
    });
  });

  describe('publishing', () => {
    it('an image: a container with image_url, caption and alt text, published, the permalink', async () => {
      await api('patch', `/media/${jpeg}`).send({ alt_text: 'A small photo' }).expect(200);
      const target = await settled(
        await scene.publish(user.refs[0], { text: 'First photo', media_ids: [jpeg] }),
      );
      const made = mediaOf(target.messages[0].id);
      expect(made.container.params).toMatchObject({
        caption: 'First photo',
        alt_text: 'A small photo',
        image_url: expect.stringContaining(`${world.publicBaseUrl}/media/`),
      });
      expect(target).toMatchObject({ status: 'published', url: made.permalink });
      const publish = graph.callsOf('publish').slice(-1)[0];
      expect(publish.path).toBe(`/${user.pages[0].instagram!.id}/media_publish`);
      expect(publish.params.creation_id).toBe(made.container.id);
      // The account's own quota was read before the container was made.
      const routes = graph.calls
        .filter((call) => call.path.includes(user.pages[0].instagram!.id))
        .map((call) => call.route);
      expect(routes.indexOf('publishing_limit')).toBeLessThan(routes.indexOf('create_container'));
    });

    it('a video is a REELS container, never published before it is FINISHED', async () => {
      graph.videoReads = 3;
      const video = await upload('sample.mp4');
      const target = await settled(
        await scene.publish(user.refs[0], { text: 'A reel', media_ids: [video] }),
      );
      const { container } = mediaOf(target.messages[0].id);
      expect(container.params).toMatchObject({ media_type: 'REELS', caption: 'A reel' });
      expect(
        graph.callsOf('container').filter((call) => call.path === `/${container.id}`).length,
      ).toBeGreaterThanOrEqual(3);
      expect(graph.unfinishedPublishes).toEqual([]);
      // Each read after the first came from a later job, and the post was paced once.
      const queue = t.app.get<Queue>(getQueueToken('publication'));
      const sent = await queue.client.llen(
        `${t.config.redisKeyPrefix}:pacing:sent:${user.id}:${user.pages[0].instagram!.id}`,
      );
      expect(sent).toBe(
        graph.media.filter((made) => made.igUserId === user.pages[0].instagram!.id).length,
      );
    });

    it('a carousel: items with is_carousel_item (a video item VIDEO), then CAROUSEL with the caption', async () => {
      const media = [jpeg, await upload('sample.jpg'), await upload('sample.mov')];
      const target = await settled(
        await scene.publish(user.refs[1], { text: 'Three', media_ids: media }),
      );
      const { container } = mediaOf(target.messages[0].id);
      expect(container.params).toMatchObject({ media_type: 'CAROUSEL', caption: 'Three' });
      const children = container.params.children.split(',').map((id) => graph.containers.get(id)!);
      expect(
        children.map((child) => [child.params.media_type, child.params.is_carousel_item]),
      ).toEqual([
        [undefined, 'true'],
        [undefined, 'true'],
        ['VIDEO', 'true'],
      ]);
    });

    it('a container that ends in ERROR is instagram_rejected with its status', async () => {
      graph.videoError = 'ERROR: Video too short';
      try {
        const video = await upload('sample.mp4');
        const target = await settled(
          await scene.publish(user.refs[0], { text: 'Too short', media_ids: [video] }),
        );
        expect(target.error?.code).toBe('instagram_rejected');
        expect(target.error?.message).toMatch(
          /could not process the post's media: Error: ERROR: Video too short/,
        );
      } finally {
        graph.videoError = null;
      }
    });

    it("Meta's media download failing is retried, not final: nothing was published", async () => {
      graph.fetchFailures = 1;
      const target = await settled(
        await scene.publish(user.refs[0], { text: 'Fetched on the second try', media_ids: [jpeg] }),
      );
      expect(target.status).toBe('published');
      const made = graph.media.filter(
        (m) => m.container.params.caption === 'Fetched on the second try',
      );
      expect(made).toHaveLength(1);
    });

    it('media_publish served but its answer lost: the kept container reads PUBLISHED, so it is delivered, never published twice', async () => {
      graph.script('publish', { afterServing: 'drop' });
      const target = await settled(
        await scene.publish(user.refs[0], { text: 'Answer lost', media_ids: [jpeg] }),
      );
      expect(target.status).toBe('published');
      const made = graph.media.filter((m) => m.container.params.caption === 'Answer lost');
      expect(made).toHaveLength(1);
      // Its id and link are read from the account's newest media.
      expect(target.messages[0]).toEqual({ id: made[0].id, url: made[0].permalink });
      expect(
        graph.callsOf('publish').filter((call) => call.params.creation_id === made[0].container.id),
      ).toHaveLength(1);
    });

    it("an app rate limit answered after the publication is waited out, then the container's PUBLISHED read: one post", async () => {
      graph.script('publish', {
        served: true,
        status: 400,
        error: {
          message: '(#4) Application request limit reached',
          type: 'OAuthException',
          code: 4,
          is_transient: true,
        },
      });
      const postId = await scene.publish(user.refs[1], { text: 'Limit after', media_ids: [jpeg] });
      await runWaitingNow(t, postId, 5 * MINUTE);
      expect((await settled(postId)).status).toBe('published');
      expect(graph.media.filter((m) => m.container.params.caption === 'Limit after')).toHaveLength(
        1,
      );
    });

    it("the account's quota used up (content_publishing_limit): its post waits, nothing is made, the user's other account goes on", async () => {
      const two = await scene.connect('instagram', 2);
      const [spent, other] = two.pages.map((page) => page.instagram!.id);
      graph.usedElsewhere.set(spent, 100);
      try {
        const postId = await scene.publish(two.refs[0], { text: 'Over quota', media_ids: [jpeg] });
        // Only that account's quota is spent: its sibling is not held with it.
        const sibling = await settled(
          await scene.publish(two.refs[1], { text: 'Sibling', media_ids: [jpeg] }),
        );
        expect(sibling.status).toBe('published');
        expect(graph.media.some((m) => m.igUserId === other)).toBe(true);
        expect(graph.callsOf('create_container').some((c) => c.path.includes(spent))).toBe(false);
        graph.usedElsewhere.delete(spent);
        await runWaitingNow(t, postId, 10 * MINUTE - 60_000);
        expect((await settled(postId)).status).toBe('published');
      } finally {
        graph.usedElsewhere.delete(spent);
      }
    });

    it('a first comment on the published media; its answer lost, the retry finds it: one comment', async () => {
      graph.script('comment', { afterServing: 'drop' });
      const target = await settled(
        await scene.publish(user.refs[0], {
          text: 'With a comment',
          media_ids: [jpeg],
          thread: [{ text: '#first comment' }],
        }),
      );
      expect(target.status).toBe('published');
      const [media, comment] = target.messages;
      const comments = graph.comments.filter((held) => held.objectId === media.id);
      expect(comments).toEqual([{ id: comment.id, objectId: media.id, message: '#first comment' }]);
    });
  });
});

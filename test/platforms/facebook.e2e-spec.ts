import { fixture } from '../support/factories/media-helpers';
import { projectApi } from '../support/factories/project-api';
import {
  FACEBOOK_APP,
  startWithFacebook,
  type FacebookConnection,
  type FacebookScene,
  type FacebookWorld,
} from '../support/factories/facebook-world';
import { consent } from '../support/factories/threads-world';
import { Factory } from '../support/factories/factories';
import { runWaitingNow, waitForPostStatus } from '../support/publication';
import type { FacebookGraphServer } from '../support/stand-ins/facebook-graph-server';
import { startTestApp, type TestApp } from '../support/test-app';

interface TargetAnswer {
  status: string;
  error: { code: string; message: string } | null;
  messages: { id: string; url: string | null }[];
  url: string | null;
}

/** Facebook pages through Facebook Login and the Graph API, end to end against the stand-in. */
describe('Facebook pages', () => {
  let world: FacebookWorld;
  let t: TestApp;
  let graph: FacebookGraphServer;
  let scene: FacebookScene;
  let user: FacebookConnection;
  const { api, upload } = projectApi(() => ({ t, project: scene.project, key: scene.key }));

  beforeAll(async () => {
    world = await startWithFacebook({
      PUBLICATION_SEND_TIMEOUT_MS: '2000',
      PUBLICATION_RETRY_BASE_MS: '50',
    });
    ({ t, graph } = world);
    scene = await world.scene('Facebook pages');
    user = await scene.connect('facebook', 2);
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

  describe('connecting', () => {
    it('sends the user to the login dialog with the app, the pages scopes, the state and the redirect', async () => {
      const res = await api('post', '/connections').send({ platform: 'facebook' }).expect(201);
      const url = new URL(res.body.authorize_url as string);
      expect(`${url.origin}${url.pathname}`).toBe(`${graph.versioned}/dialog/oauth`);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        client_id: FACEBOOK_APP.id,
        redirect_uri: `${world.publicBaseUrl}/api/oauth/facebook/callback`,
        scope:
          'pages_show_list,pages_manage_posts,pages_read_engagement,pages_manage_engagement,business_management',
        response_type: 'code',
        state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      });
    });

    it('every page the user manages is a channel; the page tokens are sealed, never answered', async () => {
      const res = await api('get', '/channels').expect(200);
      const mine = (res.body.items as { id: string; title: string; url: string }[]).filter((item) =>
        user.refs.includes(item.id),
      );
      expect(mine.map((item) => [item.id, item.title, item.url])).toEqual(
        user.pages.map((page, i) => [
          user.refs[i],
          page.name,
          `https://www.facebook.com/${page.id}`,
        ]),
      );
      expect(JSON.stringify(res.body)).not.toMatch(/EAA[SLP]/);
      const { rows } = await t.db.query('SELECT * FROM accounts WHERE id = $1', [user.id]);
      expect(rows[0].external_id).toBe(user.user.id);
      expect(JSON.stringify(rows[0])).not.toMatch(/EAA[SLP]/);
      // The code went for a long-lived user token, then the pages were read with it.
      const exchange = graph.callsOf('long_lived_token').slice(-1)[0];
      expect(exchange.params).toMatchObject({
        grant_type: 'fb_exchange_token',
        client_id: FACEBOOK_APP.id,
        client_secret: FACEBOOK_APP.secret,
      });
      const pages = graph.callsOf('pages').slice(-1)[0];
      expect(pages.params.access_token).toMatch(/^EAAL/);
      expect(pages.params.fields).toBe('id,name,access_token,link');
    });

    it('a user who declines at the dialog comes back with access_denied; nothing is stored', async () => {
      graph.signIn(null);
      const before = (await t.db.query('SELECT count(*)::int AS n FROM accounts')).rows[0].n;
      const started = await api('post', '/connections')
        .send({ platform: 'facebook', redirect_url: 'https://app.example.com/done' })
        .expect(201);
      const back = await consent(started.body.authorize_url as string);
      const res = await t.http.get(`${back.pathname}${back.search}`).expect(302);
      expect(res.headers.location).toBe(
        'https://app.example.com/done?status=error&error=access_denied',
      );
      expect((await t.db.query('SELECT count(*)::int AS n FROM accounts')).rows[0].n).toBe(before);
    });

    it('a user who manages no page is refused with facebook_rejected, saying why', async () => {
      graph.signIn({ id: '100000000000777', name: 'No pages' }, []);
      const started = await api('post', '/connections')
        .send({ platform: 'facebook', redirect_url: 'https://app.example.com/done' })
        .expect(201);
      const back = await consent(started.body.authorize_url as string);
      const res = await t.http.get(`${back.pathname}${back.search}`).expect(302);
      expect(res.headers.location).toBe(
        'https://app.example.com/done?status=error&error=facebook_rejected',
      );
    });

    it('a Herald whose media Meta cannot fetch refuses to start, naming the setting', async () => {
      const local = await startTestApp({
        ...world.env,
        PUBLIC_BASE_URL: 'http://127.0.0.9:1',
        OUTBOUND_ALLOW_CIDRS: '',
      });
      try {
        const { owner, project } = await new Factory(local).owner('Unreachable');
        const res = await local.http
          .post(`/api/projects/${project.id}/connections`)
          .set('Authorization', owner.auth)
          .send({ platform: 'facebook' })
          .expect(400);
        expect(res.body.error.code).toBe('media_url_not_public');
        expect(res.body.error.message).toMatch(/PUBLIC_BASE_URL/);
      } finally {
        await local.close();
      }
    });
  });

  describe('publishing', () => {
    it('a text: one feed post with its message and first link, the post link', async () => {
      const target = await settled(
        await scene.publish(user.refs[0], { text: 'Read https://example.com/story today' }),
      );
      const post = graph.posts.find((made) => made.id === target.messages[0].id)!;
      expect(post).toMatchObject({
        pageId: user.pages[0].id,
        kind: 'status',
        message: 'Read https://example.com/story today',
        link: 'https://example.com/story',
      });
      expect(target).toMatchObject({
        status: 'published',
        url: `https://www.facebook.com/${post.id}`,
      });
      // Published with the page's own token.
      const feed = graph.callsOf('feed').slice(-1)[0];
      expect(feed.path).toBe(`/${user.pages[0].id}/feed`);
      expect(feed.params.access_token).toMatch(/^EAAP/);
    });

    it("one image: a published photo fetched from Herald's media URL, with its caption and alt text", async () => {
      const uploaded = await api('post', '/media')
        .attach('files', fixture('sample.png'), 'sample.png')
        .expect(201);
      const asset = uploaded.body.items[0] as { id: number; url: string };
      await api('patch', `/media/${asset.id}`).send({ alt_text: 'A red square' }).expect(200);
      const target = await settled(
        await scene.publish(user.refs[1], { text: 'A picture', media_ids: [asset.id] }),
      );
      expect(target.status).toBe('published');
      const photo = graph.photos.slice(-1)[0];
      expect(photo).toMatchObject({
        pageId: user.pages[1].id,
        published: true,
        message: 'A picture',
      });
      expect(photo.params).toMatchObject({ url: asset.url, alt_text_custom: 'A red square' });
      expect(graph.fetched).toContainEqual({ url: asset.url, status: 200, type: 'image/png' });
      expect(target.messages[0].id).toBe(graph.posts.slice(-1)[0].id);
    });

    it('several images: unpublished photos attached to one feed post', async () => {
      const media = [
        await upload('sample.jpg'),
        await upload('sample.png'),
        await upload('sample.webp'),
      ];
      const target = await settled(
        await scene.publish(user.refs[0], { text: 'Three photos', media_ids: media }),
      );
      expect(target.status).toBe('published');
      const post = graph.posts.find((made) => made.id === target.messages[0].id)!;
      const photos = graph.photos.slice(-3);
      expect(photos.every((photo) => !photo.published)).toBe(true);
      expect(post).toMatchObject({ message: 'Three photos', attached: photos.map((p) => p.id) });
    });

    it('one video: posted by its file_url with the text as description', async () => {
      const media = await upload('sample.mp4');
      const target = await settled(
        await scene.publish(user.refs[0], { text: 'Moving', media_ids: [media] }),
      );
      const video = graph.posts.find((made) => made.id === target.messages[0].id)!;
      expect(video).toMatchObject({ kind: 'video', message: 'Moving' });
      expect(video.params.file_url).toMatch(/\/media\//);
    });

    it('a first comment: the thread item is commented on the post with the page token', async () => {
      const target = await settled(
        await scene.publish(user.refs[0], { text: 'With a comment', thread: [{ text: 'First!' }] }),
      );
      expect(target.status).toBe('published');
      const [post, comment] = target.messages;
      expect(graph.comments.slice(-1)[0]).toMatchObject({
        objectId: post.id,
        message: 'First!',
        id: comment.id,
      });
    });

    it('more than one item, or more than one video, is refused before anything is stored', async () => {
      const res = await api('post', '/posts')
        .send({
          text: 'x',
          thread: [{ text: 'a' }, { text: 'b' }],
          targets: [{ channel_ref: user.refs[0] }],
          publish_now: true,
        })
        .expect(400);
      expect(res.body.error.code).toBe('thread_not_supported');
      const videos = [await upload('sample.mp4'), await upload('sample.mov')];
      const mixed = await api('post', '/posts')
        .send({ text: 'two videos', media_ids: videos, targets: [{ channel_ref: user.refs[0] }] })
        .expect(400);
      expect(mixed.body.error.code).toBe('media_not_supported');
    });

    it('the answer to the publishing call lost: delivery_unconfirmed, never posted twice', async () => {
      graph.script('feed', { afterServing: 'drop' });
      const before = graph.posts.length;
      const target = await settled(await scene.publish(user.refs[0], { text: 'Lost answer' }));
      expect(target.status).toBe('failed');
      expect(target.error?.code).toBe('delivery_unconfirmed');
      expect(graph.posts.length).toBe(before + 1);
      expect(
        graph.callsOf('feed').filter((call) => call.params.message === 'Lost answer'),
      ).toHaveLength(1);
    });

    it('a publishing call Meta never answers: delivery_unconfirmed once the send time is out, never sent again', async () => {
      graph.script('feed', { hang: true });
      const target = await settled(await scene.publish(user.refs[0], { text: 'Never answered' }));
      expect(target.error?.code).toBe('delivery_unconfirmed');
      expect(
        graph.callsOf('feed').filter((c) => c.params.message === 'Never answered'),
      ).toHaveLength(1);
    });

    it("an album photo's answer lost is made again: nothing was out yet", async () => {
      graph.script('photo', { afterServing: 'drop' });
      const media = [await upload('sample.jpg'), await upload('sample.png')];
      const target = await settled(
        await scene.publish(user.refs[0], { text: 'Album retried', media_ids: media }),
      );
      expect(target.status).toBe('published');
      const post = graph.posts.find((made) => made.id === target.messages[0].id)!;
      expect(post.attached).toHaveLength(2);
      expect(graph.posts.filter((made) => made.message === 'Album retried')).toHaveLength(1);
    });

    it('a rate limit (code 32) is waited out as X-Business-Use-Case-Usage says, never a failure', async () => {
      const limited = await scene.connect('facebook');
      graph.script('feed', {
        status: 400,
        error: {
          message: '(#32) Page request limit reached',
          type: 'OAuthException',
          code: 32,
          fbtrace_id: 'A1',
        },
        headers: {
          'x-business-use-case-usage': JSON.stringify({
            [limited.pages[0].id]: [
              { type: 'pages', call_count: 100, estimated_time_to_regain_access: 7 },
            ],
          }),
        },
      });
      const postId = await scene.publish(limited.refs[0], { text: 'After the limit' });
      await runWaitingNow(t, postId, 7 * 60_000);
      expect((await settled(postId)).status).toBe('published');
      const calls = graph
        .callsOf('feed')
        .filter((call) => call.params.message === 'After the limit');
      expect(calls.map((call) => call.status)).toEqual([400, 200]);
    });

    it("a usage header at 100% holds the user's next sends until Meta's regain time: no limit is met", async () => {
      const busy = await scene.connect('facebook');
      graph.usageHeader = JSON.stringify({
        [busy.pages[0].id]: [
          { type: 'pages', call_count: 100, total_time: 20, estimated_time_to_regain_access: 3 },
        ],
      });
      try {
        expect(
          (await settled(await scene.publish(busy.refs[0], { text: 'At the edge' }))).status,
        ).toBe('published');
      } finally {
        graph.usageHeader = null;
      }
      const next = await scene.publish(busy.refs[0], { text: 'After the edge' });
      await runWaitingNow(t, next, 3 * 60_000 - 10_000);
      expect((await settled(next)).status).toBe('published');
      const calls = graph
        .callsOf('feed')
        .filter((call) => call.params.message === 'After the edge');
      expect(calls.map((call) => call.status)).toEqual([200]);
    });

    it("a refusal is facebook_rejected with Meta's message and code", async () => {
      graph.script('feed', {
        status: 400,
        error: {
          message: '(#200) Requires pages_manage_posts permission',
          type: 'OAuthException',
          code: 200,
          fbtrace_id: 'A2',
        },
      });
      const target = await settled(await scene.publish(user.refs[0], { text: 'Refused' }));
      expect(target.error).toEqual({
        code: 'facebook_rejected',
        message:
          'Facebook refused the post: (#200) Requires pages_manage_posts permission (code 200)',
      });
    });

    it('a 5xx is retried; a dead token (190) flags the account for reconnecting', async () => {
      graph.script('feed', {
        status: 500,
        error: { message: 'An unknown error occurred', code: 1, is_transient: true },
      });
      expect(
        (await settled(await scene.publish(user.refs[0], { text: 'After a 500' }))).status,
      ).toBe('published');
      const other = await scene.connect('facebook');
      graph.revoke(other.user);
      const target = await settled(await scene.publish(other.refs[0], { text: 'Dead token' }));
      expect(target.error?.code).toBe('account_needs_reconnect');
      const { rows } = await t.db.query('SELECT needs_reconnect FROM accounts WHERE id = $1', [
        other.id,
      ]);
      expect(rows[0].needs_reconnect).toBe(true);
    });
  });
});

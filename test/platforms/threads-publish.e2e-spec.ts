import { fixture } from '../support/factories/media-helpers';
import { projectApi } from '../support/factories/project-api';
import {
  startWithThreads,
  type ThreadsAccount,
  type ThreadsScene,
  type ThreadsWorld,
} from '../support/factories/threads-world';
import { waitForPostStatus } from '../support/publication';
import type { ThreadsServer } from '../support/stand-ins/threads-server';
import type { TestApp } from '../support/test-app';

interface TargetAnswer {
  status: string;
  error: { code: string; message: string } | null;
  messages: { id: string; url: string | null }[];
  url: string | null;
}

/** Publishing to Threads through containers, end to end against the stand-in over HTTP. */
describe('Threads: publishing', () => {
  let world: ThreadsWorld;
  let t: TestApp;
  let threads: ThreadsServer;
  let scene: ThreadsScene;
  const { api, upload } = projectApi(() => ({ t, project: scene.project, key: scene.key }));
  let to: ThreadsAccount;

  beforeAll(async () => {
    world = await startWithThreads();
    ({ t, threads } = world);
    scene = await world.scene('Threads publishing');
    to = await scene.connect();
  });

  afterAll(async () => {
    await world?.close();
  });

  const publish = (body: Record<string, unknown>, apiKey?: string) =>
    scene.publish(to, body, apiKey);
  const targetOf = async (postId: number, apiKey = scene.key) =>
    ((await api('get', `/posts/${postId}`, apiKey).expect(200)).body.targets as TargetAnswer[])[0];
  const delivered = async (postId: number) => {
    expect((await waitForPostStatus(t, postId)).status).toBe('published');
    return targetOf(postId);
  };
  const postOf = (id: string) => threads.posts.find((post) => post.id === id)!;

  it('a text: one TEXT container, FINISHED, threads_publish, the permalink', async () => {
    const before = threads.calls.length;
    const target = await delivered(await publish({ text: 'Hello, Threads' }));
    const post = postOf(target.messages[0].id);
    expect(post.container.params).toMatchObject({ media_type: 'TEXT', text: 'Hello, Threads' });
    expect(target).toMatchObject({
      status: 'published',
      url: post.permalink,
      messages: [{ id: post.id, url: post.permalink }],
    });
    const routes = threads.calls.slice(before).map((call) => `${call.route} ${call.status}`);
    expect(routes).toEqual([
      'publishing_limit 200',
      'create_container 200',
      'container 200',
      'publish 200',
      'media 200',
    ]);
    const [made] = threads.callsOf('create_container').slice(-1);
    expect(made.path).toBe(`/v1.0/${to.profile.id}/threads`);
    expect(threads.callsOf('publish').slice(-1)[0].params.creation_id).toBe(post.container.id);
  });

  it("an image: Threads fetches it from Herald's public media URL; its alt text goes with it", async () => {
    const uploaded = await api('post', '/media')
      .attach('files', fixture('sample.jpg'), 'sample.jpg')
      .expect(201);
    const asset = uploaded.body.items[0] as { id: number; url: string };
    const media = asset.id;
    await api('patch', `/media/${media}`).send({ alt_text: 'A lighthouse at dusk' }).expect(200);
    const target = await delivered(await publish({ text: 'A picture', media_ids: [media] }));
    const { params } = postOf(target.messages[0].id).container;
    expect(params).toMatchObject({
      media_type: 'IMAGE',
      text: 'A picture',
      alt_text: 'A lighthouse at dusk',
    });
    expect(params.image_url).toBe(asset.url);
    expect(asset.url.startsWith(`${world.publicBaseUrl}/media/`)).toBe(true);
    expect(threads.fetched).toContainEqual({ url: asset.url, status: 200 });
  });

  it('a video: never published before its container is FINISHED', async () => {
    threads.videoReads = 3;
    const media = await upload('sample.mp4');
    const target = await delivered(await publish({ text: 'Moving', media_ids: [media] }));
    const { container } = postOf(target.messages[0].id);
    expect(container.params).toMatchObject({ media_type: 'VIDEO', text: 'Moving' });
    const reads = threads
      .callsOf('container')
      .filter((call) => call.path === `/v1.0/${container.id}`);
    expect(reads.length).toBe(3);
    expect(threads.unfinishedPublishes).toEqual([]);
  });

  it('a carousel: each medium an item (is_carousel_item), then CAROUSEL with its children and the text', async () => {
    const media = [
      await upload('sample.jpg'),
      await upload('sample.png'),
      await upload('sample.mp4'),
    ];
    await api('patch', `/media/${media[1]}`).send({ alt_text: 'Second' }).expect(200);
    const target = await delivered(await publish({ text: 'Three in one', media_ids: media }));
    const { container } = postOf(target.messages[0].id);
    expect(container.params).toMatchObject({ media_type: 'CAROUSEL', text: 'Three in one' });
    const children = container.params.children.split(',').map((id) => threads.containers.get(id)!);
    expect(
      children.map((child) => [
        child.params.media_type,
        child.params.is_carousel_item,
        child.params.alt_text,
      ]),
    ).toEqual([
      ['IMAGE', 'true', undefined],
      ['IMAGE', 'true', 'Second'],
      ['VIDEO', 'true', undefined],
    ]);
    expect(children.every((child) => child.params.text === undefined)).toBe(true);
    expect(threads.unfinishedPublishes).toEqual([]);
  });

  describe('limits', () => {
    const validate = (body: Record<string, unknown>) =>
      api('post', '/posts/validate')
        .send({ ...body, targets: [{ channel_ref: to.channelRef }] })
        .expect(200);

    it('counts 500 characters with each emoji as its UTF-8 bytes', async () => {
      const fits = `${'a'.repeat(496)}👍`;
      expect((await validate({ text: fits })).body.valid).toBe(true);
      const over = `${'a'.repeat(497)}👍`;
      const res = await validate({ text: over });
      expect(res.body.errors).toEqual([
        {
          code: 'text_too_long',
          message:
            'Threads takes at most 500 characters as people see them, each emoji counting its UTF-8 bytes of text; this text has 501',
          field: 'text',
          channel_ref: to.channelRef,
        },
      ]);
      const created = await api('post', '/posts')
        .send({ text: over, targets: [{ channel_ref: to.channelRef }] })
        .expect(400);
      expect(created.body.error.code).toBe('text_too_long');
    });

    it('takes at most 5 different links', async () => {
      const links = (n: number) =>
        Array.from({ length: n }, (_, i) => `https://example.com/${i}`).join(' ');
      expect((await validate({ text: `${links(5)} https://example.com/0.` })).body.valid).toBe(
        true,
      );
      const res = await validate({ text: links(6) });
      expect(res.body.errors).toEqual([
        {
          code: 'too_many_links',
          message: 'Threads takes at most 5 different links in a message; this text has 6',
          field: 'text',
          channel_ref: to.channelRef,
        },
      ]);
    });

    it('a carousel of ten (the most a post holds) is one message', async () => {
      const media: number[] = [];
      for (let i = 0; i < 10; i++) media.push(await upload('sample.jpg'));
      const res = await validate({ text: 'Ten', media_ids: media });
      expect(res.body).toMatchObject({
        valid: true,
        targets: [{ channel_ref: to.channelRef, platform: 'threads', messages: 1 }],
      });
    });
  });

  it('a test key publishes without reaching Threads', async () => {
    const testKey = await world.make.apiKey(scene.owner, { mode: 'test' });
    const before = threads.calls.length;
    const postId = await publish({ text: 'Rehearsal' }, testKey);
    expect((await waitForPostStatus(t, postId)).status).toBe('published');
    const answer = await targetOf(postId, testKey);
    expect(answer.messages).toHaveLength(1);
    expect(answer.url).toMatch(/^https:\/\/example\.invalid\//);
    expect(threads.calls.length).toBe(before);
  });
});

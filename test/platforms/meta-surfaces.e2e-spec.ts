import { projectApi } from '../support/factories/project-api';
import {
  startWithFacebook,
  type FacebookConnection,
  type FacebookScene,
  type FacebookWorld,
} from '../support/factories/facebook-world';
import { MCP_PATH, restAnswerOf, sendToolCall } from '../support/mcp';
import { waitForPostStatus } from '../support/publication';
import type { TestApp } from '../support/test-app';

/**
 * Facebook and Instagram through every surface beside publishing: a test key's simulation, the dry
 * run, the MCP tools and the OpenAPI document (Threads has its own specs of the same).
 */
describe("Meta's networks in test mode, the dry run, MCP and OpenAPI", () => {
  let world: FacebookWorld;
  let t: TestApp;
  let scene: FacebookScene;
  let facebook: FacebookConnection;
  let instagram: FacebookConnection;
  let testKey: string;
  let jpeg: number;
  const { api, upload } = projectApi(() => ({ t, project: scene.project, key: scene.key }));

  beforeAll(async () => {
    world = await startWithFacebook();
    t = world.t;
    scene = await world.scene('Meta surfaces');
    facebook = await scene.connect('facebook');
    instagram = await scene.connect('instagram');
    testKey = await world.make.apiKey(scene.owner, { mode: 'test' });
    jpeg = await upload('sample.jpg');
  });

  afterAll(async () => {
    await world?.close();
  });

  it.each([
    ['facebook', () => facebook.refs[0]],
    ['instagram', () => instagram.refs[0]],
  ])(
    "a test key's post with its first comment to %s is simulated: nothing reaches Meta",
    async (_name, ref) => {
      const before = world.graph.calls.length;
      const created = await api('post', '/posts', testKey)
        .send({
          text: 'Only a rehearsal',
          media_ids: [jpeg],
          thread: [{ text: 'Its comment' }],
          targets: [{ channel_ref: ref() }],
          publish_now: true,
        })
        .expect(201);
      const id = created.body.id as number;
      expect((await waitForPostStatus(t, id)).status).toBe('published');
      const post = (await api('get', `/posts/${id}`, testKey).expect(200)).body;
      expect(post.test).toBe(true);
      expect(post.targets[0].messages).toHaveLength(2);
      expect(world.graph.calls.slice(before)).toEqual([]);
    },
  );

  it("the dry run previews each network's messages and answers its own rules", async () => {
    for (const ref of [facebook.refs[0], instagram.refs[0]]) {
      const res = await api('post', '/posts/validate')
        .send({
          text: 'A preview',
          media_ids: [jpeg],
          thread: [{ text: 'A first comment' }],
          targets: [{ channel_ref: ref }],
        })
        .expect(200);
      expect(res.body.valid).toBe(true);
      expect(res.body.targets[0].messages_preview).toEqual(['A preview', 'A first comment']);
    }
    const bare = await api('post', '/posts/validate')
      .send({ text: 'No media', targets: [{ channel_ref: instagram.refs[0] }] })
      .expect(200);
    expect(bare.body.valid).toBe(false);
    expect(bare.body.errors[0]).toMatchObject({
      code: 'media_required',
      field: 'media_ids',
      channel_ref: instagram.refs[0],
    });
  });

  it('the MCP tools publish to Instagram and refuse what it refuses, with the same codes', async () => {
    const call = (name: string, args: unknown) =>
      sendToolCall(
        t.http.post(MCP_PATH).set('Authorization', `Bearer ${scene.key}`),
        name,
        JSON.stringify(args),
      );
    const refused = restAnswerOf(
      await call('create_post', {
        project_id: scene.project.id,
        text: 'No media',
        targets: [{ channel_ref: instagram.refs[0] }],
      }),
      201,
    );
    expect(refused.status).toBe(400);
    expect((refused.body as { error: { code: string } }).error.code).toBe('media_required');
    const made = restAnswerOf(
      await call('create_post', {
        project_id: scene.project.id,
        text: 'Through MCP',
        media_ids: [jpeg],
        targets: [{ channel_ref: instagram.refs[0] }],
        publish_now: true,
      }),
      201,
    );
    expect(made.status).toBe(201);
    const id = (made.body as { id: number }).id;
    expect((await waitForPostStatus(t, id)).status).toBe('published');
    expect(world.graph.media.some((m) => m.container.params.caption === 'Through MCP')).toBe(true);
  });

  it("the OpenAPI document names Meta's three networks, their codes and their limits", async () => {
    const doc = JSON.stringify((await t.http.get('/api/public/v1/openapi.json').expect(200)).body);
    for (const name of ['facebook', 'instagram', 'threads']) expect(doc).toContain(`"${name}"`);
    for (const code of [
      'instagram_rejected',
      'facebook_unavailable',
      'media_required',
      'too_many_hashtags',
    ])
      expect(doc).toContain(code);
    expect(doc).toContain('hashtags_max');
  });
});

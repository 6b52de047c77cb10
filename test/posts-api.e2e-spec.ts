import { Factory, SignedInUser, TestChannel, TestProject } from './support/factories';
import { fixture } from './support/media-helpers';
import { waitForPostStatus } from './support/publication';
import { startWithTelegram, TelegramWorld } from './support/telegram-world';
import { TestApp } from './support/test-app';
import { MICROS } from './support/expectations';

/** Issue 10: one post by id, change, cancel, pages (D19). */
describe('Posts API for integrators: the post object (D19)', () => {
  let world: TelegramWorld;
  let t: TestApp;
  let make: Factory;
  let owner: SignedInUser;
  let key: string;
  let project: TestProject;
  let channel: TestChannel;
  let other: TestChannel;

  beforeAll(async () => {
    world = await startWithTelegram({
      RATE_LIMIT_CREATE_POST: '10000',
      RATE_LIMIT_PUBLISH: '10000',
      RATE_LIMIT_OTHER: '10000',
      RATE_LIMIT_UPLOAD: '10000',
    });
    ({ t, make } = world);
    ({ owner, project, key } = await make.owner('Post object'));
    const account = await make.telegramAccount(owner, project);
    channel = await make.channel(owner, account.id);
    other = await make.channel(owner, account.id);
  });

  afterAll(async () => {
    await world?.close();
  });

  const path = (rest: string, projectId: number | string = project.id) =>
    `/api/public/v1/projects/${projectId}${rest}`;
  const get = (id: number | string, apiKey = key, projectId: number | string = project.id) =>
    t.http.get(path(`/posts/${id}`, projectId)).set('Authorization', `Bearer ${apiKey}`);
  const create = async (body: object) => {
    const res = await t.http.post(path('/posts')).set('Authorization', `Bearer ${key}`).send(body);
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 201 });
    return res;
  };
  const upload = async (name: string) =>
    (
      (
        await t.http
          .post(path('/media'))
          .set('Authorization', `Bearer ${key}`)
          .attach('files', fixture(name), name)
          .expect(201)
      ).body as { items: { id: number; type: string; mime_type: string; url: string }[] }
    ).items[0];

  describe('GET /projects/{project_id}/posts/{post_id}', () => {
    it('answers the post object: list item fields, updated_at, media in album order, targets', async () => {
      const png = await upload('sample.png');
      const mp4 = await upload('sample.mp4');
      const created = (
        await create({
          text: 'Album',
          media_ids: [mp4.id, png.id],
          targets: [{ channel_ref: channel.id }, { channel_ref: other.id }],
        })
      ).body;
      const res = await get(created.id).expect(200);
      expect(res.body).toEqual({
        id: created.id,
        status: 'draft',
        text: 'Album',
        platform: 'telegram',
        channel_ids: [channel.channel_id, other.channel_id],
        scheduled_at: null,
        published_at: null,
        created_at: created.created_at,
        updated_at: expect.stringMatching(MICROS),
        project_id: project.id,
        media_ids: [mp4.id, png.id],
        media: [
          { id: mp4.id, type: 'video', mime_type: 'video/mp4', url: mp4.url },
          { id: png.id, type: 'image', mime_type: 'image/png', url: png.url },
        ],
        targets: [
          {
            channel_ref: channel.id,
            channel_id: channel.channel_id,
            status: 'pending',
            error: null,
            message_ids: [],
            published_at: null,
          },
          {
            channel_ref: other.id,
            channel_id: other.channel_id,
            status: 'pending',
            error: null,
            message_ids: [],
            published_at: null,
          },
        ],
      });
    });

    it('after delivery: per-target status, the Telegram message ids and published_at', async () => {
      const created = (
        await create({ text: 'Sent', targets: [{ channel_ref: channel.id }], publish_now: true })
      ).body;
      await waitForPostStatus(t, created.id);
      const res = await get(created.id).expect(200);
      expect(res.body).toMatchObject({
        status: 'published',
        published_at: expect.stringMatching(MICROS),
        targets: [
          {
            channel_ref: channel.id,
            status: 'published',
            error: null,
            message_ids: [expect.any(Number)],
            published_at: res.body.published_at,
          },
        ],
      });
      const sends = world.telegram
        .callsOf('sendMessage')
        .filter((c) => c.params.text === 'Sent' && String(c.params.chat_id) === channel.channel_id);
      expect(sends).toHaveLength(1);
      const { rows } = await t.db.query('SELECT message_ids FROM post_targets WHERE post_id = $1', [
        created.id,
      ]);
      expect(rows[0].message_ids).toEqual(res.body.targets[0].message_ids);
    });

    it('a failed target carries its error { code, message }', async () => {
      world.telegram.script('sendMessage', {
        status: 403,
        description: 'Forbidden: bot was kicked from the channel chat',
      });
      const created = (
        await create({ text: 'Refused', targets: [{ channel_ref: other.id }], publish_now: true })
      ).body;
      await waitForPostStatus(t, created.id);
      const res = await get(created.id).expect(200);
      expect(res.body.status).toBe('failed');
      expect(res.body.targets[0]).toEqual({
        channel_ref: other.id,
        channel_id: other.channel_id,
        status: 'failed',
        error: { code: expect.any(String), message: expect.stringContaining('kicked') },
        message_ids: [],
        published_at: null,
      });
    });

    it('404 post_not_found: another project’s post, a missing id, a malformed id (D5, D18)', async () => {
      const otherProject = await make.project(owner, 'Other');
      const theirs = (
        await t.http
          .post(path('/posts', otherProject.id))
          .set('Authorization', `Bearer ${key}`)
          .send({ text: 'Theirs' })
          .expect(201)
      ).body;
      for (const id of [
        String(theirs.id),
        '2147483647',
        '2147483648',
        'abc',
        '01',
        '1e0',
        '%201',
        '-1',
        '1.5',
      ]) {
        const res = await get(id);
        expect({ id, status: res.status, code: res.body.error?.code }).toEqual({
          id,
          status: 404,
          code: 'post_not_found',
        });
      }
      // The other project's own path finds it.
      await get(theirs.id, key, otherProject.id).expect(200);
    });
  });
});

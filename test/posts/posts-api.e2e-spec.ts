import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { Factory, SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { fixture } from '../support/factories/media-helpers';
import { waitForPostStatus } from '../support/publication';
import { addMember } from '../support/factories/team';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { TestApp } from '../support/test-app';
import { MICROS } from '../support/expectations';
import { sleep } from '../support/waits';

/** One post by id, change, cancel, pages (docs/api-rules.md#post-object-and-list). */
describe('Posts API for integrators: the post object', () => {
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
      TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '100000',
    });
    ({ t, make } = world);
    ({
      owner,
      project,
      key,
      channels: [channel, other],
    } = await make.ownerWithChannels('Post object', 2));
  });

  afterAll(async () => {
    await world?.close();
  });

  const path = (rest: string, projectId: number | string = project.id) =>
    `/api/public/v1/projects/${projectId}${rest}`;
  const get = (id: number | string, apiKey = key, projectId: number | string = project.id) =>
    t.http.get(path(`/posts/${id}`, projectId)).set('Authorization', `Bearer ${apiKey}`);
  const create = async (body: object, apiKey = key) => {
    const res = await t.http
      .post(path('/posts'))
      .set('Authorization', `Bearer ${apiKey}`)
      .send(body);
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 201 });
    return res;
  };
  const patch = (id: number | string, body: unknown, apiKey = key) =>
    t.http
      .patch(path(`/posts/${id}`))
      .set('Authorization', `Bearer ${apiKey}`)
      .send(body as object);
  const remove = (id: number | string, apiKey = key) =>
    t.http.delete(path(`/posts/${id}`)).set('Authorization', `Bearer ${apiKey}`);
  const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
  const expectError = (
    res: { status: number; body: { error?: { code: string; message: string } } },
    status: number,
    code: string,
  ) => expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
  /** What the Telegram stand-in was sent with this text, to any chat. */
  const sentWith = (text: string) =>
    world.telegram.callsOf('sendMessage').filter((c) => c.params.text === text);
  const row = async (id: number) =>
    (
      await t.db.query(
        `SELECT status, text, publish_attempt, scheduled_at IS NOT NULL AS has_time
           FROM posts WHERE id = $1`,
        [id],
      )
    ).rows[0];
  const queue = () => t.app.get<Queue>(getQueueToken('publication'));
  const scheduled = async (text: string, seconds: number, target = channel) =>
    (
      await create({
        text,
        targets: [{ channel_ref: target.id }],
        scheduled_at: inSeconds(seconds),
      })
    ).body as { id: number };
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
        test: false,
        updated_at: expect.stringMatching(MICROS),
        project_id: project.id,
        media_ids: [mp4.id, png.id],
        thread: [],
        split_long_text: false,
        media: [
          { id: mp4.id, type: 'video', mime_type: 'video/mp4', alt_text: null, url: mp4.url },
          { id: png.id, type: 'image', mime_type: 'image/png', alt_text: null, url: png.url },
        ],
        targets: [
          {
            channel_ref: channel.id,
            channel_id: channel.channel_id,
            status: 'pending',
            error: null,
            message_ids: [],
            url: null,
            messages: [],
            published_at: null,
          },
          {
            channel_ref: other.id,
            channel_id: other.channel_id,
            status: 'pending',
            error: null,
            message_ids: [],
            url: null,
            messages: [],
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
      const [id] = res.body.targets[0].message_ids as number[];
      const url = `https://t.me/${channel.username}/${id}`;
      expect(res.body.targets[0]).toMatchObject({ url, messages: [{ id: String(id), url }] });
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
        status: 400,
        description: 'Bad Request: message is too weird',
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
        error: { code: expect.any(String), message: expect.stringContaining('too weird') },
        message_ids: [],
        url: null,
        messages: [],
        published_at: null,
      });
    });

    it('404 post_not_found: another project’s post, a missing id, a malformed id', async () => {
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

  describe('PATCH /projects/{project_id}/posts/{post_id}', () => {
    it('changes text, media and targets of a draft: 200 with the post object; fields not given stay', async () => {
      const png = await upload('sample.png');
      const jpg = await upload('sample.jpg');
      const id = (await create({ text: 'Before', targets: [{ channel_ref: channel.id }] })).body.id;
      const res = await patch(id, {
        text: 'After',
        media_ids: [jpg.id, png.id],
        targets: [{ channel_ref: other.id }],
      }).expect(200);
      expect(res.body).toMatchObject({
        id,
        status: 'draft',
        text: 'After',
        media_ids: [jpg.id, png.id],
        media: [{ id: jpg.id }, { id: png.id }],
        channel_ids: [other.channel_id],
        targets: [{ channel_ref: other.id, status: 'pending' }],
        updated_at: expect.stringMatching(MICROS),
      });
      expect(res.body).toEqual((await get(id).expect(200)).body);
      const again = await patch(id, { text: 'Only the text' }).expect(200);
      expect(again.body).toMatchObject({
        text: 'Only the text',
        media_ids: [jpg.id, png.id],
        channel_ids: [other.channel_id],
      });
      // Media may be emptied while the post keeps a text.
      expect((await patch(id, { media_ids: [] }).expect(200)).body.media).toEqual([]);
    });

    it.each<[string, unknown, string]>([
      ['an empty body', {}, 'text'],
      ['an unknown field', { txt: 'typo' }, 'txt'],
      ['a text over 4096 characters', { text: 'x'.repeat(4097) }, 'text'],
      ['a text that is not a string', { text: 5 }, 'text'],
      ['a past scheduled_at', { scheduled_at: '2020-01-01T00:00:00Z' }, 'scheduled_at'],
      ['a scheduled_at that is no date', { scheduled_at: 'tomorrow' }, 'scheduled_at'],
      ['repeated targets', { targets: [{ channel_ref: 'a' }, { channel_ref: 'a' }] }, 'targets'],
      ['eleven media ids', { media_ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }, 'media_ids'],
      ['a JSON array', [], ''],
    ])('400 validation_failed for %s, and the post stays as it was', async (_, body, field) => {
      const id = (await create({ text: 'Stays' })).body.id;
      const before = await row(id);
      const res = await patch(id, body);
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.message).toContain(field);
      expect(await row(id)).toEqual(before);
    });

    it('applies the creation rules to the post as it would become', async () => {
      const png = await upload('sample.png');
      const mediaOnly = (await create({ media_ids: [png.id] })).body.id;
      // Dropping the media of a post without text leaves nothing to send.
      let res = await patch(mediaOnly, { media_ids: [] });
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.message).toContain('text');
      // Scheduling a draft without targets.
      const bare = (await create({ text: 'No targets' })).body.id;
      res = await patch(bare, { scheduled_at: inSeconds(3600) });
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.message).toContain('targets');
      // Emptying the targets of a scheduled post.
      const timed = (await scheduled('Timed', 3600)).id;
      expectError(await patch(timed, { targets: [] }), 400, 'validation_failed');
      expectError(
        await patch(bare, { targets: [{ channel_ref: 'telegram:1:-100' }] }),
        400,
        'channel_not_found',
      );
      expectError(await patch(bare, { media_ids: [2_000_000_000] }), 400, 'media_not_found');
      expect(await row(bare)).toMatchObject({ status: 'draft', text: 'No targets' });
      expect(await row(timed)).toMatchObject({ status: 'scheduled', publish_attempt: 1 });
    });

    it('400 channel_needs_reconnect when the post would be scheduled to such a channel; a draft may keep it', async () => {
      const project2 = await make.project(owner, 'Reconnect');
      const account = await make.telegramAccount(owner, project2);
      const stale = await make.channel(owner, account.id);
      const id = (
        await t.http
          .post(path('/posts', project2.id))
          .set('Authorization', `Bearer ${key}`)
          .send({ text: 'x', targets: [{ channel_ref: stale.id }] })
          .expect(201)
      ).body.id;
      await make.refuseAccount(project2, key, stale);
      const send = (body: object) =>
        t.http
          .patch(path(`/posts/${id}`, project2.id))
          .set('Authorization', `Bearer ${key}`)
          .send(body);
      expectError(await send({ scheduled_at: inSeconds(3600) }), 400, 'channel_needs_reconnect');
      await send({ text: 'still a draft' }).expect(200);
    });

    it.each(['queued', 'publishing', 'published', 'failed'])(
      '409 invalid_state while the post is %s, and nothing changes',
      async (status) => {
        const id = (await create({ text: 'Frozen' })).body.id;
        await t.db.query('UPDATE posts SET status = $2 WHERE id = $1', [id, status]);
        expectError(await patch(id, { text: 'changed' }), 409, 'invalid_state');
        expect(await row(id)).toMatchObject({ status, text: 'Frozen' });
      },
    );

    it('404 post_not_found for another project’s post or a malformed id', async () => {
      const otherProject = await make.project(owner, 'Elsewhere');
      const theirs = (
        await t.http
          .post(path('/posts', otherProject.id))
          .set('Authorization', `Bearer ${key}`)
          .send({ text: 'Theirs' })
          .expect(201)
      ).body.id;
      for (const id of [theirs, 2_000_000_000, '01', 'x'])
        expectError(await patch(id, { text: 'mine' }), 404, 'post_not_found');
      expect((await t.db.query('SELECT text FROM posts WHERE id = $1', [theirs])).rows).toEqual([
        { text: 'Theirs' },
      ]);
    });

    it('reschedules earlier: the new time fires, once, and the old job is gone', async () => {
      // Within the schedule horizon (ten minutes): the post holds a delayed job to remove.
      const { id } = await scheduled('Earlier', 300);
      const res = await patch(id, { scheduled_at: inSeconds(1) }).expect(200);
      expect(res.body.status).toBe('scheduled');
      expect(await queue().getJob(`post:${id}:1`)).toBeNull();
      expect((await waitForPostStatus(t, id)).status).toBe('published');
      expect(sentWith('Earlier')).toHaveLength(1);
      expect(sentWith('Earlier')[0].params.chat_id).toBe(channel.channel_id);
    });

    it('reschedules later: the old time does not fire', async () => {
      const { id } = await scheduled('Later', 1);
      await patch(id, { scheduled_at: inSeconds(300) }).expect(200);
      await sleep(2500);
      expect(sentWith('Later')).toEqual([]);
      expect(await row(id)).toMatchObject({ status: 'scheduled', publish_attempt: 2 });
      expect(await (await queue().getJob(`post:${id}:2`))?.getState()).toBe('delayed');
    });

    it('unschedules with scheduled_at: null: a draft again, nothing sent', async () => {
      const { id } = await scheduled('Unscheduled', 1);
      const res = await patch(id, { scheduled_at: null }).expect(200);
      expect(res.body).toMatchObject({ status: 'draft', scheduled_at: null });
      await sleep(2500);
      expect(sentWith('Unscheduled')).toEqual([]);
      expect(await row(id)).toMatchObject({ status: 'draft', has_time: false });
    });

    it('an edit of a scheduled post keeps its time and sends the edited text, once', async () => {
      const { id } = await scheduled('Draft wording', 1);
      const res = await patch(id, { text: 'Final wording' }).expect(200);
      expect(res.body.status).toBe('scheduled');
      expect((await waitForPostStatus(t, id)).status).toBe('published');
      expect(sentWith('Final wording')).toHaveLength(1);
      expect(sentWith('Draft wording')).toEqual([]);
    });

    it('PATCH racing the firing job: either the edit is applied and sent, or 409 and the post went out as it was', async () => {
      const { id } = await scheduled('race-0', 1);
      let lastApplied = 'race-0';
      let refused = false;
      for (let i = 1; i <= 300 && !refused; i++) {
        const res = await patch(id, { text: `race-${i}` });
        if (res.status === 200) lastApplied = `race-${i}`;
        else {
          expectError(res, 409, 'invalid_state');
          refused = true;
        }
      }
      expect((await waitForPostStatus(t, id)).status).toBe('published');
      const sent = world.telegram
        .callsOf('sendMessage')
        .filter((c) => String(c.params.text).startsWith('race-'));
      expect(sent.map((c) => c.params.text)).toEqual([lastApplied]);
      expect((await row(id)).text).toBe(lastApplied);
      // Once it is out, every edit is refused.
      expectError(await patch(id, { text: 'too late' }), 409, 'invalid_state');
    });
  });

  describe('POST /projects/{project_id}/posts/{post_id}/publish without targets', () => {
    const publish = (id: number, body?: object) => {
      const req = t.http.post(path(`/posts/${id}/publish`)).set('Authorization', `Bearer ${key}`);
      return body === undefined ? req : req.send(body);
    };

    it('with no body or an empty object, publishes to the targets the post has', async () => {
      for (const body of [undefined, {}]) {
        const text = `Own targets ${JSON.stringify(body)}`;
        const { id } = (await create({ text, targets: [{ channel_ref: channel.id }] })).body;
        const res = await publish(id, body);
        expect({ status: res.status, body: res.body }).toEqual({
          status: 202,
          body: { id, status: 'publishing', test: false },
        });
        expect((await waitForPostStatus(t, id)).status).toBe('published');
        expect(sentWith(text).map((c) => String(c.params.chat_id))).toEqual([channel.channel_id]);
      }
    });

    it('400 validation_failed naming targets when the post has none and the body names none', async () => {
      const { id } = (await create({ text: 'Nowhere to go' })).body;
      const res = await publish(id);
      expect({ status: res.status, error: res.body.error }).toEqual({
        status: 400,
        error: {
          code: 'validation_failed',
          message: 'targets: the post has no targets; name them in the body',
          details: [
            { field: 'targets', message: 'the post has no targets; name them in the body' },
          ],
        },
      });
      expect((await row(id)).status).toBe('draft');
    });
  });

  describe('DELETE /projects/{project_id}/posts/{post_id}', () => {
    it('204 for a draft; then GET, PATCH and DELETE answer 404 post_not_found', async () => {
      const id = (await create({ text: 'Bye' })).body.id;
      const res = await remove(id).expect(204);
      expect(res.text).toBe('');
      expectError(await get(id), 404, 'post_not_found');
      expectError(await patch(id, { text: 'x' }), 404, 'post_not_found');
      expectError(await remove(id), 404, 'post_not_found');
      expect((await t.db.query('SELECT 1 FROM posts WHERE id = $1', [id])).rowCount).toBe(0);
    });

    it('a deleted scheduled post never fires', async () => {
      const { id } = await scheduled('Cancelled', 1);
      await remove(id).expect(204);
      await sleep(2500);
      expect(sentWith('Cancelled')).toEqual([]);
      expect(await queue().getJob(`post:${id}:1`)).toBeNull();
    });

    it('204 for a failed post', async () => {
      const id = (await create({ text: 'Failed once' })).body.id;
      await t.db.query(`UPDATE posts SET status = 'failed' WHERE id = $1`, [id]);
      await remove(id).expect(204);
    });

    it.each(['queued', 'publishing', 'published'])(
      '409 invalid_state while the post is %s, and it stays',
      async (status) => {
        const id = (await create({ text: 'Kept' })).body.id;
        await t.db.query('UPDATE posts SET status = $2 WHERE id = $1', [id, status]);
        expectError(await remove(id), 409, 'invalid_state');
        expect(await row(id)).toMatchObject({ status });
      },
    );

    it('404 post_not_found for another project’s post, which stays', async () => {
      const otherProject = await make.project(owner, 'Not yours');
      const theirs = (
        await t.http
          .post(path('/posts', otherProject.id))
          .set('Authorization', `Bearer ${key}`)
          .send({ text: 'Theirs' })
          .expect(201)
      ).body.id;
      expectError(await remove(theirs), 404, 'post_not_found');
      expect((await t.db.query('SELECT 1 FROM posts WHERE id = $1', [theirs])).rowCount).toBe(1);
    });
  });

  describe('scopes and member flags of GET, PATCH and DELETE one post', () => {
    const PUBLISH = 'Недостаточно прав для публикации';
    const EDIT = 'Недостаточно прав для редактирования контента';
    const VIEW = 'Недостаточно прав для просмотра контента';
    type Call = 'get' | 'patch text' | 'patch schedule' | 'patch unschedule' | 'delete';
    const run = async (what: Call, apiKey: string) => {
      const id = (await create({ text: 'Guarded', targets: [{ channel_ref: channel.id }] })).body
        .id;
      if (what === 'patch unschedule')
        await patch(id, { scheduled_at: inSeconds(3600) }).expect(200);
      const res = await {
        get: () => get(id, apiKey),
        'patch text': () => patch(id, { text: 'Changed' }, apiKey),
        'patch schedule': () => patch(id, { scheduled_at: inSeconds(3600) }, apiKey),
        'patch unschedule': () => patch(id, { scheduled_at: null }, apiKey),
        delete: () => remove(id, apiKey),
      }[what]();
      return { res, id };
    };
    const OK: Record<Call, number> = {
      get: 200,
      'patch text': 200,
      'patch schedule': 200,
      'patch unschedule': 200,
      delete: 204,
    };

    it.each<[Call, string[], number, string | null]>([
      ['get', ['posts:read'], 200, null],
      ['get', ['posts:write', 'posts:publish'], 403, 'insufficient_scope'],
      ['patch text', ['posts:write'], 200, null],
      ['patch text', ['posts:read', 'posts:publish'], 403, 'insufficient_scope'],
      ['patch schedule', ['posts:write'], 403, 'insufficient_scope'],
      ['patch schedule', ['posts:publish'], 403, 'insufficient_scope'],
      ['patch schedule', ['posts:write', 'posts:publish'], 200, null],
      ['patch unschedule', ['posts:write'], 200, null],
      ['delete', ['posts:write'], 204, null],
      ['delete', ['posts:read', 'posts:publish'], 403, 'insufficient_scope'],
    ])('%s with scopes %j → %i', async (what, scopes, status, code) => {
      const limited = await make.apiKey(owner, { scopes });
      const { res, id } = await run(what, limited);
      expect({ status: res.status, code: res.body.error?.code ?? null }).toEqual({ status, code });
      if (status >= 400) expect(await row(id)).toMatchObject({ text: 'Guarded' });
    });

    it.each<[string, Partial<Record<string, boolean>>, Call, string | null]>([
      ['observer', {}, 'get', null],
      ['observer', {}, 'patch text', EDIT],
      ['observer', {}, 'delete', EDIT],
      ['editor without can_view_content', { can_view_content: false }, 'get', VIEW],
      ['editor without can_publish', { can_publish: false }, 'patch text', null],
      ['editor without can_publish', { can_publish: false }, 'patch schedule', PUBLISH],
      ['editor without can_publish', { can_publish: false }, 'patch unschedule', null],
      ['editor without can_publish', { can_publish: false }, 'delete', null],
      ['editor without can_edit_content', { can_edit_content: false }, 'patch text', EDIT],
      ['editor without can_edit_content', { can_edit_content: false }, 'delete', EDIT],
      ['editor', {}, 'patch schedule', null],
    ])('a member (%s, %j): %s', async (role, flags, what, message) => {
      const member = await make.admin(role);
      await addMember(
        t,
        owner,
        project,
        member,
        role === 'observer' ? 'observer' : 'editor',
        Object.keys(flags).length > 0 ? flags : undefined,
      );
      const { res } = await run(what, await make.apiKey(member));
      if (message === null) expect(res.status).toBe(OK[what]);
      else
        expect({ status: res.status, error: res.body.error }).toEqual({
          status: 403,
          error: { code: 'forbidden', message },
        });
    });

    it('404 project_not_found for a non-member, before the post is looked at', async () => {
      const stranger = await make.apiKey(await make.admin('Stranger'));
      const id = (await create({ text: 'Not theirs' })).body.id;
      for (const res of [
        await get(id, stranger),
        await patch(id, { text: 'x' }, stranger),
        await remove(id, stranger),
      ])
        expectError(res, 404, 'project_not_found');
    });
  });

  describe('list pages: status filter and cursors', () => {
    let walk: TestProject;
    const list = (query: Record<string, string | number>, projectId = walk.id, apiKey = key) =>
      t.http.get(path('/posts', projectId)).query(query).set('Authorization', `Bearer ${apiKey}`);
    const createIn = (projectId: number, text: string) =>
      t.http
        .post(path('/posts', projectId))
        .set('Authorization', `Bearer ${key}`)
        .send({ text })
        .expect(201);

    beforeAll(async () => {
      walk = await make.project(owner, 'Walk');
      for (let i = 1; i <= 250; i++) await createIn(walk.id, `walk ${i}`);
      // Ties on created_at are broken by id: give forty posts one instant.
      await t.db.query(
        `UPDATE posts SET created_at = '2026-01-01 00:00:00.000001+00'
          WHERE project_id = $1 AND text IN (${Array.from({ length: 40 }, (_, i) => `'walk ${100 + i}'`).join(', ')})`,
        [walk.id],
      );
    });

    it('following next_cursor visits every post exactly once, newest first, while posts are created', async () => {
      const seen: { id: number; text: string; created_at: string }[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: Record<string, string | number> = cursor ? { limit: 7, cursor } : { limit: 7 };
        const res = await list(query).expect(200);
        expect(res.body.count).toBe(res.body.items.length);
        seen.push(...res.body.items);
        cursor = res.body.next_cursor as string | null;
        pages++;
        // Creates interleaved with the walk: newer than every cursor, so never on a later page.
        await createIn(walk.id, `new during page ${pages}`);
      } while (cursor !== null && pages < 100);
      expect(pages).toBe(Math.ceil(250 / 7));
      const walked = seen.filter((p) => p.text.startsWith('walk '));
      expect(walked).toHaveLength(250);
      expect(new Set(seen.map((p) => p.id)).size).toBe(seen.length);
      // The posts created meanwhile are newer than the first page: they would start a new walk.
      expect(seen).toHaveLength(250);
      const { rows } = await t.db.query(
        `SELECT id FROM posts WHERE project_id = $1 AND text LIKE 'walk %'
          ORDER BY created_at DESC, id DESC`,
        [walk.id],
      );
      expect(walked.map((p) => p.id)).toEqual(rows.map((r: { id: number }) => r.id));
    });

    it('the last page has next_cursor null; a page exactly full too', async () => {
      const small = await make.project(owner, 'Small');
      for (const text of ['a', 'b', 'c', 'd']) await createIn(small.id, text);
      const first = await list({ limit: 2 }, small.id).expect(200);
      expect(first.body.items.map((p: { text: string }) => p.text)).toEqual(['d', 'c']);
      const second = await list({ limit: 2, cursor: first.body.next_cursor }, small.id).expect(200);
      expect(second.body.items.map((p: { text: string }) => p.text)).toEqual(['b', 'a']);
      expect(second.body.next_cursor).toBeNull();
      expect((await list({ limit: 4 }, small.id).expect(200)).body.next_cursor).toBeNull();
      expect((await list({}, small.id).expect(200)).body).toMatchObject({
        count: 4,
        next_cursor: null,
      });
    });

    it('?status= filters, and its cursors continue the filtered list', async () => {
      const mixed = await make.project(owner, 'Mixed');
      const ids: number[] = [];
      for (let i = 0; i < 9; i++) ids.push((await createIn(mixed.id, `m${i}`)).body.id);
      await t.db.query(`UPDATE posts SET status = 'failed' WHERE id = ANY($1::int[])`, [
        [ids[1], ids[4], ids[5], ids[8]],
      ]);
      const first = await list({ status: 'failed', limit: 3 }, mixed.id).expect(200);
      expect(first.body.items.map((p: { id: number }) => p.id)).toEqual([ids[8], ids[5], ids[4]]);
      expect(first.body.items.every((p: { status: string }) => p.status === 'failed')).toBe(true);
      const second = await list(
        { status: 'failed', limit: 3, cursor: first.body.next_cursor },
        mixed.id,
      ).expect(200);
      expect(second.body).toMatchObject({ count: 1, next_cursor: null });
      expect(second.body.items[0].id).toBe(ids[1]);
      expect((await list({ status: 'published' }, mixed.id).expect(200)).body).toEqual({
        items: [],
        count: 0,
        next_cursor: null,
      });
      expectError(await list({ status: 'sent' }, mixed.id), 400, 'validation_failed');
    });

    it('400 validation_failed for a cursor that is not ours, or not for this list', async () => {
      const first = await list({ limit: 5 }).expect(200);
      const cursor: string = first.body.next_cursor;
      const [body, mac] = cursor.split('.');
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      const forged = Buffer.from(
        JSON.stringify([...payload.slice(0, 4), payload[4] + 1000]),
      ).toString('base64url');
      const otherProject = await make.project(owner, 'Foreign cursor');
      await createIn(otherProject.id, 'x');
      await createIn(otherProject.id, 'y');
      const foreign = (await list({ limit: 1 }, otherProject.id).expect(200)).body.next_cursor;
      for (const [name, query] of [
        ['forged payload, old signature', { cursor: `${forged}.${mac}` }],
        ['no signature', { cursor: body }],
        ['garbage', { cursor: 'abc' }],
        ['empty', { cursor: '' }],
        ['another project’s cursor', { cursor: foreign }],
        ['a cursor of the unfiltered list with a filter', { cursor, status: 'draft' }],
        ['too long', { cursor: 'x'.repeat(600) }],
      ] as const) {
        const res = await list(query);
        expect({ name, status: res.status, code: res.body.error?.code }).toEqual({
          name,
          status: 400,
          code: 'validation_failed',
        });
        expect(res.body.error.message).toContain('cursor');
      }
    });
  });
});

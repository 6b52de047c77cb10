import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { Factory, SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { postRulesWorld } from '../support/factories/new-post';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { addMember } from '../support/factories/team';
import { TestApp } from '../support/test-app';

const LONG = 'x'.repeat(1025); // longer than a Telegram caption

/**
 * The dry run, `POST /projects/{id}/posts/validate`: the create body checked by create's own
 * rules, every problem at once, with each target's message count; nothing stored or counted.
 */
describe('Dry run of a post', () => {
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
    world = await startWithTelegram({ RATE_LIMIT_CREATE_POST: '10000', RATE_LIMIT_OTHER: '10000' });
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
    } = await postRulesWorld(t, make, 'Dry run'));
  });

  afterAll(async () => {
    await world?.close();
  });

  const path = (suffix = '') => `/api/public/v1/projects/${project.id}/posts${suffix}`;
  const dryRun = (body: unknown, withKey = key) =>
    t.http
      .post(path('/validate'))
      .set('Authorization', `Bearer ${withKey}`)
      .send(body as object);
  const create = (body: unknown) =>
    t.http
      .post(path())
      .set('Authorization', `Bearer ${key}`)
      .send(body as object);

  /** The project's posts and the publication queue's jobs. */
  async function stored(): Promise<{ posts: number; jobs: number }> {
    const { rows } = await t.db.query(
      'SELECT count(*)::int AS n FROM posts WHERE project_id = $1',
      [project.id],
    );
    const queue = t.app.get<Queue>(getQueueToken('publication'));
    const counts = await queue.getJobCounts();
    return { posts: rows[0].n, jobs: Object.values(counts).reduce((a, b) => a + b, 0) };
  }

  it('a body create accepts: valid, no errors, and each target’s message count; nothing stored or counted', async () => {
    const before = await stored();
    const usage = await t.http.get('/api/public/v1/usage').set('Authorization', `Bearer ${key}`);
    const res = await dryRun({
      text: 'Hello',
      targets: [{ channel_ref: channel.id }, { channel_ref: other.id }],
      publish_now: true,
    }).expect(200);
    expect(res.body).toEqual({
      valid: true,
      errors: [],
      targets: [
        { channel_ref: channel.id, platform: 'telegram', messages: 1, messages_preview: ['Hello'] },
        { channel_ref: other.id, platform: 'telegram', messages: 1, messages_preview: ['Hello'] },
      ],
    });
    expect(res.headers['x-ratelimit-limit']).toBe('10000'); // the category "other"
    expect(await stored()).toEqual(before);
    const after = await t.http.get('/api/public/v1/usage').set('Authorization', `Bearer ${key}`);
    expect(after.body.posts_this_month).toBe(usage.body.posts_this_month);
    expect(world.telegram.calls.filter((call) => call.method.startsWith('send'))).toEqual([]);
  });

  it('a thread: each message previewed; a problem of an item named once, by the item', async () => {
    const ok = await dryRun({
      text: 'Head',
      media_ids: [image],
      thread: [{ text: LONG, media_ids: [image] }, { text: 'Tail' }],
      targets: [{ channel_ref: channel.id }],
    }).expect(200);
    // The item's image and its text, too long for a caption, as a message of its own.
    expect(ok.body.targets).toEqual([
      {
        channel_ref: channel.id,
        platform: 'telegram',
        messages: 4,
        messages_preview: ['Head', '', LONG, 'Tail'],
      },
    ]);
    const bad = await dryRun({
      text: 'Head',
      thread: [{ text: 'x', media_ids: [strangersMedia] }, { text: 'y'.repeat(4097) }],
      targets: [{ channel_ref: channel.id }],
    }).expect(200);
    expect(bad.body.errors.map((e: { code: string; field: string }) => [e.code, e.field])).toEqual([
      ['validation_failed', 'thread.1.text'],
      ['media_not_found', 'thread[0].media_ids'],
    ]);
  });

  it.each<[string, { text: string; media_ids?: string[] }, number]>([
    ['text alone', { text: 'Hi' }, 1],
    ['one image and a caption', { text: 'Hi', media_ids: ['image'] }, 1],
    ['one image and a text too long for a caption', { text: LONG, media_ids: ['image'] }, 2],
    ['an album', { text: 'Hi', media_ids: ['image', 'video'] }, 1],
    ['an album and a long text', { text: LONG, media_ids: ['image', 'video'] }, 2],
  ])('counts the messages of %s', async (_name, body, messages) => {
    const ids = (body.media_ids ?? []).map((name) => (name === 'image' ? image : video));
    const res = await dryRun({
      ...body,
      ...(ids.length ? { media_ids: ids } : {}),
      targets: [{ channel_ref: channel.id }],
    }).expect(200);
    expect(res.body).toMatchObject({ valid: true, targets: [{ messages }] });
  });

  it('names three problems at once, across text, media and targets', async () => {
    const res = await dryRun({
      text: 'y'.repeat(4097),
      media_ids: [image, strangersMedia],
      targets: [{ channel_ref: channel.id }, { channel_ref: strangersChannel.id }],
    }).expect(200);
    expect(res.body).toEqual({
      valid: false,
      errors: [
        {
          code: 'validation_failed',
          message: 'text: text must be at most 4096 characters',
          field: 'text',
          channel_ref: null,
        },
        {
          code: 'channel_not_found',
          message: `Channel ${strangersChannel.id} is not a channel of this project`,
          field: 'targets',
          channel_ref: strangersChannel.id,
        },
        {
          code: 'media_not_found',
          message: `Media not found in this project: ${strangersMedia}`,
          field: 'media_ids',
          channel_ref: null,
        },
      ],
      // The image and the text, too long for its caption, as a message of its own.
      targets: [
        {
          channel_ref: channel.id,
          platform: 'telegram',
          messages: 2,
          messages_preview: ['', 'y'.repeat(4097)],
        },
      ],
    });
  });

  it.each<[string, Record<string, unknown>]>([
    ['an unknown field', { text: 'x', colour: 'red' }],
    ['no text and no media', { targets: [] }],
    ['too many media', { text: 'x', media_ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }],
    ['a repeated target', { text: 'x', targets: [{ channel_ref: 'a' }, { channel_ref: 'a' }] }],
    ['publish_now without targets', { text: 'x', publish_now: true }],
    ['a past scheduled_at', { text: 'x', scheduled_at: '2020-01-01T00:00:00Z', targets: [] }],
    ['a channel of another project', { text: 'x', targets: [{ channel_ref: 'telegram:1:1' }] }],
    ['media of another project', { text: 'x', media_ids: [2_000_000_000] }],
    ['a reconnecting channel when publishing', { text: 'x', publish_now: true, targets: ['R'] }],
  ])('%s: the code create answers, and create stores nothing', async (_name, body) => {
    const concrete = {
      ...body,
      ...(Array.isArray(body.targets) && body.targets[0] === 'R'
        ? { targets: [{ channel_ref: reconnecting.id }] }
        : {}),
    };
    const before = await stored();
    const refused = await create(concrete).expect(400);
    const checked = await dryRun(concrete).expect(200);
    expect(checked.body.valid).toBe(false);
    expect(checked.body.errors[0].code).toBe(refused.body.error.code);
    expect(await stored()).toEqual(before);
  });

  it('create, PATCH and publish answer the first problem, with every problem in error.details', async () => {
    const body = {
      text: 'x',
      media_ids: [strangersMedia],
      targets: [{ channel_ref: strangersChannel.id }, { channel_ref: reconnecting.id }],
      publish_now: true,
    };
    const problems = [
      {
        code: 'channel_not_found',
        message: `Channel ${strangersChannel.id} is not a channel of this project`,
        field: 'targets',
        channel_ref: strangersChannel.id,
      },
      {
        code: 'channel_needs_reconnect',
        message: `The account of channel ${reconnecting.id} must be reconnected first`,
        field: 'targets',
        channel_ref: reconnecting.id,
      },
      {
        code: 'media_not_found',
        message: `Media not found in this project: ${strangersMedia}`,
        field: 'media_ids',
        channel_ref: null,
      },
    ];
    const created = await create(body).expect(400);
    expect(created.body.error).toEqual({
      code: problems[0].code,
      message: problems[0].message,
      details: problems,
    });
    expect((await dryRun(body).expect(200)).body.errors).toEqual(problems);

    const draft = await create({ text: 'draft' }).expect(201);
    const patched = await t.http
      .patch(path(`/${draft.body.id}`))
      .set('Authorization', `Bearer ${key}`)
      .send({ targets: body.targets, media_ids: body.media_ids })
      .expect(400);
    expect(patched.body.error.details.map((d: { code: string }) => d.code)).toEqual([
      'channel_not_found',
      'media_not_found',
    ]);
    const published = await t.http
      .post(path(`/${draft.body.id}/publish`))
      .set('Authorization', `Bearer ${key}`)
      .send({ targets: body.targets })
      .expect(400);
    expect(published.body.error.details.map((d: { code: string }) => d.code)).toEqual([
      'channel_not_found',
      'channel_needs_reconnect',
    ]);
  });

  describe('checked in the order of every public route', () => {
    const body = { text: 'x', targets: [{ channel_ref: 'telegram:1:1' }], publish_now: true };

    it('no key: 401; a key without posts:write: 403 insufficient_scope', async () => {
      await t.http.post(path('/validate')).send(body).expect(401);
      const readOnly = await make.apiKey(owner, { scopes: ['posts:read'] });
      const res = await dryRun(body, readOnly).expect(403);
      expect(res.body.error.code).toBe('insufficient_scope');
    });

    it('publishing needs posts:publish too, as create does', async () => {
      const writeOnly = await make.apiKey(owner, { scopes: ['posts:write'] });
      const res = await dryRun(body, writeOnly).expect(403);
      expect(res.body.error.code).toBe('insufficient_scope');
      await dryRun({ text: 'a draft is enough' }, writeOnly).expect(200);
    });

    it('a stranger’s project: 404; an observer: 403 forbidden', async () => {
      const stranger = await make.owner('Stranger');
      const res = await t.http
        .post(`/api/public/v1/projects/${stranger.project.id}/posts/validate`)
        .set('Authorization', `Bearer ${key}`)
        .send(body)
        .expect(404);
      expect(res.body.error.code).toBe('project_not_found');
      const observer = await make.admin('Observer');
      await addMember(t, owner, project, observer, 'observer');
      const observersKey = await make.apiKey(observer);
      const refused = await dryRun({ text: 'x' }, observersKey).expect(403);
      expect(refused.body.error.code).toBe('forbidden');
    });

    it('a body that is not an object: 400 validation_failed', async () => {
      const res = await t.http
        .post(path('/validate'))
        .set('Authorization', `Bearer ${key}`)
        .set('Content-Type', 'application/json')
        .send('[1, 2]')
        .expect(400);
      expect(res.body.error.code).toBe('validation_failed');
    });
  });

  it('a test key checks as a live key does', async () => {
    const testKey = await make.apiKey(owner, { mode: 'test' });
    const res = await dryRun({ text: 'x', targets: [{ channel_ref: channel.id }] }, testKey);
    expect(res.body).toEqual({
      valid: true,
      errors: [],
      targets: [
        { channel_ref: channel.id, platform: 'telegram', messages: 1, messages_preview: ['x'] },
      ],
    });
  });
});

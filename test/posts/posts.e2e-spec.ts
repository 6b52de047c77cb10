import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { PostsService } from '../../src/domains/posts/posts.service';
import { ProjectsService } from '../../src/domains/projects/projects.service';
import { Factory, SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { addMember, allFlagsBut } from '../support/factories/team';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { TestApp } from '../support/test-app';
import { MICROS } from '../support/expectations';

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

/**
 * The posts routes of the public API: scopes, flags, states, post rules, lists and usage
 * (docs/api-rules.md#post-rules); delivery is in test/publication/publication.e2e-spec.ts.
 */
describe('Public posts API', () => {
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
    });
    ({ t, make } = world);
    ({
      owner,
      project,
      key,
      channels: [channel, other],
    } = await make.ownerWithChannels('Posts', 2));
  });

  afterAll(async () => {
    await world?.close();
  });

  const call = (
    method: 'get' | 'post',
    path: string,
    apiKey = key,
    projectId: number | string = project.id,
  ) =>
    t.http[method](`/api/public/v1/projects/${projectId}${path}`).set(
      'Authorization',
      `Bearer ${apiKey}`,
    );
  const create = (body: unknown, apiKey = key) =>
    call('post', '/posts', apiKey).send(body as object);
  const expectError = (
    res: { status: number; body: { error: { code: string; message: string } } },
    status: number,
    code: string,
  ) => {
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(typeof res.body.error.message).toBe('string');
  };

  describe('POST /projects/{id}/posts', () => {
    it('creates a draft when neither scheduled_at nor publish_now is given: 201, every field of the answer', async () => {
      const res = await create({ text: 'Just a draft', targets: [{ channel_ref: channel.id }] });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        status: 'draft',
        project_id: project.id,
        text: 'Just a draft',
        scheduled_at: null,
        created_at: expect.stringMatching(MICROS),
        test: false,
      });
      const { rows } = await t.db.query(
        `SELECT status, created_by_user_id,
                to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS created
           FROM posts WHERE id = $1`,
        [res.body.id],
      );
      expect(rows[0]).toEqual({
        status: 'draft',
        created_by_user_id: owner.id,
        created: res.body.created_at,
      });
    });

    it('a draft may have no targets at all', async () => {
      const res = await create({ text: 'Nowhere yet' }).expect(201);
      expect(res.body.status).toBe('draft');
    });

    it.each([
      ['a Z suffix', '2030-01-02T03:04:05Z', '2030-01-02T03:04:05.000000'],
      ['an offset', '2030-01-02T06:04:05.123456+03:00', '2030-01-02T03:04:05.123456'],
      ['no offset (UTC)', '2030-01-02T03:04:05.5', '2030-01-02T03:04:05.500000'],
    ])('creates a scheduled post for a future scheduled_at with %s', async (_, input, stored) => {
      // Pin "now" far enough back that 2030 lies within the year ahead a schedule may reach.
      const realNow = Date.now;
      Date.now = () => Date.parse('2029-06-01T00:00:00Z');
      try {
        const res = await create({
          text: 'Later',
          targets: [{ channel_ref: channel.id }],
          scheduled_at: input,
        }).expect(201);
        expect(res.body.status).toBe('scheduled');
        expect(res.body.scheduled_at).toBe(stored);
      } finally {
        Date.now = realNow;
      }
    });

    it('creates a queued post on publish_now', async () => {
      const res = await create({
        text: 'Now',
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      }).expect(201);
      expect(res.body.status).toBe('queued');
      expect(res.body.scheduled_at).toBeNull();
    });

    it('publish_now: false is a draft', async () => {
      const res = await create({ text: 'No', publish_now: false }).expect(201);
      expect(res.body.status).toBe('draft');
    });

    const target = () => [{ channel_ref: channel.id }];
    const tooMany = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ channel_ref: `telegram:1:${i}` }));
    it.each<[string, () => Record<string, unknown>, string]>([
      [
        'scheduled_at and publish_now together',
        () => ({ text: 'x', targets: target(), scheduled_at: inSeconds(60), publish_now: true }),
        'publish_now',
      ],
      ['text missing without media', () => ({ targets: target() }), 'text'],
      ['text blank without media', () => ({ text: '   ' }), 'text'],
      ['text not a string', () => ({ text: 42 }), 'text'],
      ['text over 4096 characters', () => ({ text: 'a'.repeat(4097) }), 'text'],
      ['targets not an array', () => ({ text: 'x', targets: 'telegram:1:2' }), 'targets'],
      [
        'a target without channel_ref',
        () => ({ text: 'x', targets: [{}] }),
        'targets.0.channel_ref',
      ],
      ['a repeated target', () => ({ text: 'x', targets: [...target(), ...target()] }), 'targets'],
      ['more than 50 targets', () => ({ text: 'x', targets: tooMany(51) }), 'targets'],
      ['targets missing with publish_now', () => ({ text: 'x', publish_now: true }), 'targets'],
      [
        'targets empty with scheduled_at',
        () => ({ text: 'x', targets: [], scheduled_at: inSeconds(60) }),
        'targets',
      ],
      [
        'more than 10 media_ids',
        () => ({ text: 'x', media_ids: Array.from({ length: 11 }, (_, i) => i + 1) }),
        'media_ids',
      ],
      ['repeated media_ids', () => ({ text: 'x', media_ids: [1, 1] }), 'media_ids'],
      ['a media id that is not an integer', () => ({ text: 'x', media_ids: [1.5] }), 'media_ids'],
      [
        'scheduled_at in the past',
        () => ({ text: 'x', targets: target(), scheduled_at: inSeconds(-60) }),
        'scheduled_at',
      ],
      [
        'scheduled_at more than a year ahead',
        () => ({ text: 'x', targets: target(), scheduled_at: inSeconds(367 * 86400) }),
        'scheduled_at',
      ],
      [
        'scheduled_at not a date-time',
        () => ({ text: 'x', targets: target(), scheduled_at: 'tomorrow' }),
        'scheduled_at',
      ],
      [
        'scheduled_at an impossible date',
        () => ({ text: 'x', targets: target(), scheduled_at: '2030-02-30T10:00:00Z' }),
        'scheduled_at',
      ],
      [
        'publish_now not a boolean',
        () => ({ text: 'x', targets: target(), publish_now: 'yes' }),
        'publish_now',
      ],
      ['an unknown field (a typo)', () => ({ text: 'x', publish_nwo: true }), 'publish_nwo'],
    ])('400 validation_failed: %s', async (_, body, field) => {
      const before = await t.db.query('SELECT count(*)::int AS n FROM posts');
      const res = await create(body());
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.message).toContain(field);
      expect(res.body.error.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field })]),
      );
      const after = await t.db.query('SELECT count(*)::int AS n FROM posts');
      expect(after.rows[0].n).toBe(before.rows[0].n);
    });

    it('names every bad field in one answer', async () => {
      const res = await create({ text: 5, media_ids: 'x', publish_now: 'y', extra: 1 });
      expectError(res, 400, 'validation_failed');
      for (const field of ['text', 'media_ids', 'publish_now', 'extra'])
        expect(res.body.error.message).toContain(field);
    });

    it('media alone needs no text', async () => {
      const { rows } = await t.db.query(
        `INSERT INTO media_assets (project_id, type, filename, mime_type, size_bytes, storage_path)
         VALUES ($1, 'image', 'a.png', 'image/png', 10, $2) RETURNING id`,
        [project.id, `projects/${project.id}/2026/11/only-media-${Date.now()}.png`],
      );
      const res = await create({ media_ids: [rows[0].id] }).expect(201);
      expect(res.body.text).toBe('');
    });

    it('400 channel_not_found for a ref of another project, an unknown chat, or a malformed ref', async () => {
      const stranger = await make.admin('Stranger');
      const theirs = await make.project(stranger);
      const theirAccount = await make.telegramAccount(stranger, theirs);
      const theirChannel = await make.channel(stranger, theirAccount.id);
      for (const ref of [
        theirChannel.id,
        `telegram:${theirAccount.id}:-100999`,
        'nonsense',
        `${channel.id}x`,
        // An account id past the database's integer range names no account (bad input is never a
        // 500).
        'telegram:2147483648:-100123',
        'telegram:9999999999:-100123',
      ]) {
        const res = await create({
          text: 'x',
          targets: [{ channel_ref: channel.id }, { channel_ref: ref }],
        });
        expectError(res, 400, 'channel_not_found');
      }
    });

    it('400 mixed_platforms when targets span two platforms', async () => {
      // A platform Herald does not register has no API path: its rows are written by hand, in a
      // project of their own so that the shared project's channel list stays readable.
      const mixed = await make.project(owner, 'Mixed platforms');
      const telegramChannel = await make.channel(
        owner,
        (await make.telegramAccount(owner, mixed)).id,
      );
      const { rows } = await t.db.query(
        `WITH a AS (INSERT INTO accounts (project_id, platform, external_id, title, credentials_encrypted)
                    VALUES ($1, 'vk', '1', 'VK', 'x') RETURNING id)
         INSERT INTO channels (project_id, account_id, platform, channel_id, title)
         SELECT $1, id, 'vk', '555', 'VK wall' FROM a RETURNING account_id`,
        [mixed.id],
      );
      const res = await call('post', '/posts', key, mixed.id).send({
        text: 'x',
        targets: [
          { channel_ref: telegramChannel.id },
          { channel_ref: `vk:${rows[0].account_id}:555` },
        ],
      });
      expectError(res, 400, 'mixed_platforms');
    });

    it('400 channel_needs_reconnect when scheduling or publishing to it; a draft is fine', async () => {
      const account = await make.telegramAccount(owner, project);
      const stale = await make.channel(owner, account.id);
      await make.refuseAccount(project, key, stale);
      const targets = [{ channel_ref: stale.id }];
      expectError(
        await create({ text: 'x', targets, publish_now: true }),
        400,
        'channel_needs_reconnect',
      );
      expectError(
        await create({ text: 'x', targets, scheduled_at: inSeconds(60) }),
        400,
        'channel_needs_reconnect',
      );
      await create({ text: 'x', targets }).expect(201);
    });

    it('400 media_not_found for an unknown id or another project’s media', async () => {
      const stranger = await make.user('Media stranger');
      const theirs = await make.project(stranger);
      const { rows } = await t.db.query(
        `INSERT INTO media_assets (project_id, type, filename, mime_type, size_bytes, storage_path)
         VALUES ($1, 'image', 'a.png', 'image/png', 10, $2) RETURNING id`,
        [theirs.id, `projects/${theirs.id}/2026/11/theirs-${Date.now()}.png`],
      );
      expectError(await create({ text: 'x', media_ids: [rows[0].id] }), 400, 'media_not_found');
      expectError(await create({ text: 'x', media_ids: [2_000_000_000] }), 400, 'media_not_found');
    });

    it('400 invalid_json for a body that is not JSON; 413 payload_too_large over 1 MB', async () => {
      const bad = await call('post', '/posts')
        .set('Content-Type', 'application/json')
        .send('{"text": ');
      expectError(bad, 400, 'invalid_json');
      const big = await create({ text: 'x'.repeat(1024 * 1024 + 10) });
      expectError(big, 413, 'payload_too_large');
    });
  });

  describe('GET /projects/{id}/posts', () => {
    let listProject: TestProject;
    beforeAll(async () => {
      listProject = await make.project(owner, 'List');
      const account = await make.telegramAccount(owner, listProject);
      const a = await make.channel(owner, account.id, { chatId: -1005550001 });
      const b = await make.channel(owner, account.id, { chatId: -1005550002 });
      for (let i = 1; i <= 25; i++) {
        await call('post', '/posts', key, listProject.id)
          .send({
            text: `Post ${i}`,
            ...(i === 25 ? { targets: [{ channel_ref: a.id }, { channel_ref: b.id }] } : {}),
          })
          .expect(201);
      }
    });
    const list = (query = '') => call('get', `/posts${query}`, key, listProject.id);

    it('lists newest first, 20 by default, every field of a list item and per-target state', async () => {
      const res = await list().expect(200);
      expect(res.body.count).toBe(20);
      expect(res.body.items).toHaveLength(20);
      expect(res.body.items.map((p: { text: string }) => p.text).slice(0, 3)).toEqual([
        'Post 25',
        'Post 24',
        'Post 23',
      ]);
      expect(res.body.items[0]).toEqual({
        id: expect.any(Number),
        status: 'draft',
        text: 'Post 25',
        platform: 'telegram',
        channel_ids: ['-1005550001', '-1005550002'],
        scheduled_at: null,
        published_at: null,
        created_at: expect.stringMatching(MICROS),
        test: false,
        project_id: listProject.id,
        media_ids: [],
        thread: [],
        split_long_text: false,
        targets: [
          expect.objectContaining({ channel_id: '-1005550001', status: 'pending', error: null }),
          expect.objectContaining({ channel_id: '-1005550002', status: 'pending', error: null }),
        ],
      });
      expect(res.body.items[1]).toMatchObject({ platform: null, channel_ids: [], targets: [] });
    });

    it('orders by created_at desc, then id desc', async () => {
      await t.db.query(
        `UPDATE posts SET created_at = '2020-01-01 00:00:00.123456+00' WHERE project_id = $1 AND text IN ('Post 1', 'Post 2')`,
        [listProject.id],
      );
      const res = await list('?limit=100').expect(200);
      expect(res.body.count).toBe(25);
      const tail = res.body.items.slice(-2);
      expect(tail.map((p: { text: string }) => p.text)).toEqual(['Post 2', 'Post 1']);
      expect(tail[0].created_at).toBe('2020-01-01T00:00:00.123456');
    });

    it.each(['1', '100', '7'])('accepts limit=%s', async (limit) => {
      const res = await list(`?limit=${limit}`).expect(200);
      expect(res.body.count).toBe(Math.min(Number(limit), 25));
    });

    it.each(['0', '101', '-1', '1.5', 'abc', '', '1e1', '10&limit=20'])(
      '400 validation_failed for limit=%s',
      async (limit) => {
        expectError(await list(`?limit=${limit}`), 400, 'validation_failed');
      },
    );

    it('400 validation_failed for an unknown query parameter', async () => {
      expectError(await list('?limt=5'), 400, 'validation_failed');
    });
  });

  describe('POST /projects/{id}/posts/{post_id}/publish', () => {
    it('202 { id, status: "publishing" }', async () => {
      const post = (await create({ text: 'Go' }).expect(201)).body;
      const res = await call('post', `/posts/${post.id}/publish`)
        .send({ targets: [{ channel_ref: channel.id }] })
        .expect(202);
      expect(res.body).toEqual({ id: post.id, status: 'publishing', test: false });
    });

    it('404 post_not_found: another project’s post, a missing id, a non-integer id', async () => {
      const otherProject = await make.project(owner, 'Other');
      const theirs = (
        await call('post', '/posts', key, otherProject.id).send({ text: 'x' }).expect(201)
      ).body;
      for (const id of [String(theirs.id), '2000000000', 'abc', '1.5', '-3']) {
        const res = await call('post', `/posts/${id}/publish`).send({
          targets: [{ channel_ref: channel.id }],
        });
        expectError(res, 404, 'post_not_found');
      }
    });

    it('400 too_many_media_files when the stored media_files hold more than 10', async () => {
      const post = (await create({ text: 'Heavy' }).expect(201)).body;
      await t.db.query(
        `WITH m AS (
           INSERT INTO media_assets (project_id, type, filename, mime_type, size_bytes, storage_path)
           SELECT $1, 'image', 'a.png', 'image/png', 10, 'projects/heavy/' || $2::int || '/' || g
             FROM generate_series(1, 11) g RETURNING id)
         INSERT INTO post_media (post_id, media_asset_id, position)
         SELECT $2::int, id, row_number() OVER (ORDER BY id) FROM m`,
        [project.id, post.id],
      );
      const res = await call('post', `/posts/${post.id}/publish`).send({
        targets: [{ channel_ref: channel.id }],
      });
      expectError(res, 400, 'too_many_media_files');
      const { rows } = await t.db.query('SELECT status FROM posts WHERE id = $1', [post.id]);
      expect(rows[0].status).toBe('draft');
    });

    it.each<[string, unknown, number, string]>([
      ['no targets', {}, 400, 'validation_failed'],
      ['empty targets', { targets: [] }, 400, 'validation_failed'],
      [
        'a repeated target',
        { targets: [{ channel_ref: 'telegram:1:1' }, { channel_ref: 'telegram:1:1' }] },
        400,
        'validation_failed',
      ],
      [
        'an unknown field',
        { targets: [{ channel_ref: 'telegram:1:1' }], now: true },
        400,
        'validation_failed',
      ],
      [
        'a channel of no one',
        { targets: [{ channel_ref: 'telegram:1:1' }] },
        400,
        'channel_not_found',
      ],
      [
        'an account id past the integer range',
        { targets: [{ channel_ref: 'telegram:2147483648:1' }] },
        400,
        'channel_not_found',
      ],
    ])('targets rules: %s', async (_, body, status, code) => {
      const post = (await create({ text: 'Rules' }).expect(201)).body;
      expectError(
        await call('post', `/posts/${post.id}/publish`).send(body as object),
        status,
        code,
      );
      const { rows } = await t.db.query('SELECT status FROM posts WHERE id = $1', [post.id]);
      expect(rows[0].status).toBe('draft');
    });

    it('400 channel_needs_reconnect when a target’s account needs reconnecting', async () => {
      const account = await make.telegramAccount(owner, project);
      const stale = await make.channel(owner, account.id);
      await make.refuseAccount(project, key, stale);
      const post = (await create({ text: 'Stale' }).expect(201)).body;
      expectError(
        await call('post', `/posts/${post.id}/publish`).send({
          targets: [{ channel_ref: stale.id }],
        }),
        400,
        'channel_needs_reconnect',
      );
    });
  });

  describe('scopes and member permissions', () => {
    let editor: SignedInUser;
    let editorKey: string;
    let noPublish: SignedInUser;
    let noPublishKey: string;
    let observerKey: string;
    let noViewKey: string;
    let strangerKey: string;
    let draftId: number;

    beforeAll(async () => {
      editor = await make.admin('Editor');
      await addMember(t, owner, project, editor, 'editor');
      editorKey = await make.apiKey(editor);
      noPublish = await make.admin('Editor without can_publish');
      await addMember(t, owner, project, noPublish, 'editor', { can_publish: false });
      noPublishKey = await make.apiKey(noPublish);
      const observer = await make.admin('Observer');
      await addMember(t, owner, project, observer, 'observer');
      observerKey = await make.apiKey(observer);
      const noView = await make.admin('No view');
      await addMember(t, owner, project, noView, 'editor', allFlagsBut('can_view_content'));
      noViewKey = await make.apiKey(noView);
      strangerKey = await make.apiKey(await make.admin('Non-member'));
      draftId = (await create({ text: 'Permission target' }).expect(201)).body.id;
    });

    const PUBLISH_MESSAGE = 'Недостаточно прав для публикации';
    const EDIT_MESSAGE = 'Недостаточно прав для редактирования контента';
    const VIEW_MESSAGE = 'Недостаточно прав для просмотра контента';

    it.each<[string, string[], 'get' | 'post', string, () => object]>([
      [
        'GET posts without posts:read',
        ['posts:write', 'posts:publish'],
        'get',
        '/posts',
        () => ({}),
      ],
      [
        'create without posts:write',
        ['posts:read', 'posts:publish'],
        'post',
        '/posts',
        () => ({ text: 'x' }),
      ],
      [
        'create with publish_now without posts:publish',
        ['posts:write'],
        'post',
        '/posts',
        () => ({ text: 'x', targets: [{ channel_ref: channel.id }], publish_now: true }),
      ],
      [
        'create with scheduled_at without posts:publish',
        ['posts:write'],
        'post',
        '/posts',
        () => ({ text: 'x', targets: [{ channel_ref: channel.id }], scheduled_at: inSeconds(60) }),
      ],
      [
        'publish without posts:publish',
        ['posts:write', 'posts:read'],
        'post',
        '/posts/1/publish',
        () => ({ targets: [{ channel_ref: channel.id }] }),
      ],
    ])('403 insufficient_scope: %s', async (_, scopes, method, path, body) => {
      const limited = await make.apiKey(owner, { scopes });
      const res = await call(method, path, limited).send(body());
      expectError(res, 403, 'insufficient_scope');
    });

    it('posts:write alone creates drafts', async () => {
      const limited = await make.apiKey(owner, { scopes: ['posts:write'] });
      await create({ text: 'draft via write-only key' }, limited).expect(201);
    });

    it('the scope is checked before the project: a missing project answers 403, not 404', async () => {
      const limited = await make.apiKey(owner, { scopes: ['posts:write'] });
      const res = await call('post', '/posts', limited, 2_000_000_000).send({
        text: 'x',
        publish_now: true,
      });
      expectError(res, 403, 'insufficient_scope');
    });

    it.each<[string, 'get' | 'post', string, () => object]>([
      ['list', 'get', '/posts', () => ({})],
      ['create', 'post', '/posts', () => ({ text: 'x' })],
      ['publish', 'post', '/posts/1/publish', () => ({ targets: [] })],
    ])('404 project_not_found for a non-member: %s', async (_, method, path, body) => {
      expectError(await call(method, path, strangerKey).send(body()), 404, 'project_not_found');
    });

    it('a member with can_edit_content but not can_publish: draft yes, publish_now and scheduled_at 403', async () => {
      await create({ text: 'my draft' }, noPublishKey).expect(201);
      for (const extra of [{ publish_now: true }, { scheduled_at: inSeconds(60) }]) {
        const res = await create(
          { text: 'x', targets: [{ channel_ref: channel.id }], ...extra },
          noPublishKey,
        );
        expectError(res, 403, 'forbidden');
        expect(res.body.error.message).toBe(PUBLISH_MESSAGE);
      }
      const publish = await call('post', `/posts/${draftId}/publish`, noPublishKey).send({
        targets: [{ channel_ref: channel.id }],
      });
      expectError(publish, 403, 'forbidden');
      expect(publish.body.error.message).toBe(PUBLISH_MESSAGE);
    });

    it('the publish flag is checked before body validation', async () => {
      const res = await create({ text: 42, publish_now: true, bogus: 1 }, noPublishKey);
      expectError(res, 403, 'forbidden');
      expect(res.body.error.message).toBe(PUBLISH_MESSAGE);
    });

    it('an observer may list but not create or publish', async () => {
      await call('get', '/posts', observerKey).expect(200);
      const created = await create({ text: 'x' }, observerKey);
      expectError(created, 403, 'forbidden');
      expect(created.body.error.message).toBe(EDIT_MESSAGE);
      const published = await call('post', `/posts/${draftId}/publish`, observerKey).send({
        targets: [{ channel_ref: channel.id }],
      });
      expectError(published, 403, 'forbidden');
      expect(published.body.error.message).toBe(PUBLISH_MESSAGE);
    });

    it('a member without can_view_content cannot list', async () => {
      const res = await call('get', '/posts', noViewKey);
      expectError(res, 403, 'forbidden');
      expect(res.body.error.message).toBe(VIEW_MESSAGE);
    });

    it('an editor with default flags creates, schedules, lists and publishes', async () => {
      const scheduled = await create(
        { text: 'Editor', targets: [{ channel_ref: other.id }], scheduled_at: inSeconds(3600) },
        editorKey,
      ).expect(201);
      expect(scheduled.body.status).toBe('scheduled');
      await call('get', '/posts', editorKey).expect(200);
      await call('post', `/posts/${scheduled.body.id}/publish`, editorKey)
        .send({ targets: [{ channel_ref: other.id }] })
        .expect(202);
      const { rows } = await t.db.query('SELECT created_by_user_id FROM posts WHERE id = $1', [
        scheduled.body.id,
      ]);
      expect(rows[0].created_by_user_id).toBe(editor.id);
    });
  });

  describe('PostsService update and remove (the application API builds on them)', () => {
    const access = async () => {
      const found = await t.app.get(ProjectsService).findAccess(owner.id, project.id);
      if (!found) throw new Error('owner has no access');
      return found;
    };
    const queue = () => t.app.get<Queue>(getQueueToken('publication'));
    const statusOf = async (id: number) =>
      (await t.db.query('SELECT status, publish_attempt FROM posts WHERE id = $1', [id])).rows[0];

    it('updates a draft’s text and targets; schedules and reschedules it; turns it back into a draft', async () => {
      const posts = t.app.get(PostsService);
      const id = (await create({ text: 'Before' }).expect(201)).body.id;
      const updated = await posts.update(await access(), id, {
        text: 'After',
        targets: [{ channel_ref: other.id }],
      });
      expect(updated).toMatchObject({
        status: 'draft',
        text: 'After',
        channel_ids: [other.channel_id],
      });

      // Within the schedule horizon (ten minutes), where a scheduled post holds a delayed job.
      await posts.update(await access(), id, { scheduled_at: inSeconds(300) });
      expect(await statusOf(id)).toEqual({ status: 'scheduled', publish_attempt: 1 });
      expect(await (await queue().getJob(`post:${id}:1`))?.getState()).toBe('delayed');

      await posts.update(await access(), id, { scheduled_at: inSeconds(450) });
      expect(await statusOf(id)).toEqual({ status: 'scheduled', publish_attempt: 2 });
      expect(await queue().getJob(`post:${id}:1`)).toBeNull();
      expect(await (await queue().getJob(`post:${id}:2`))?.getState()).toBe('delayed');

      await posts.update(await access(), id, { scheduled_at: null });
      expect((await statusOf(id)).status).toBe('draft');
      expect(await queue().getJob(`post:${id}:2`)).toBeNull();
    });

    it('refuses to update or delete while a job is in hand or after publication (409 invalid_state)', async () => {
      const posts = t.app.get(PostsService);
      const id = (await create({ text: 'Locked' }).expect(201)).body.id;
      for (const status of ['queued', 'publishing']) {
        await t.db.query('UPDATE posts SET status = $2 WHERE id = $1', [id, status]);
        await expect(posts.update(await access(), id, { text: 'x' })).rejects.toMatchObject({
          code: 'invalid_state',
        });
        await expect(posts.remove(await access(), id)).rejects.toMatchObject({
          code: 'invalid_state',
        });
      }
      // A published post can be neither changed nor deleted; a failed one can be deleted.
      await t.db.query(`UPDATE posts SET status = 'published' WHERE id = $1`, [id]);
      await expect(posts.update(await access(), id, { text: 'x' })).rejects.toMatchObject({
        code: 'invalid_state',
      });
      await expect(posts.remove(await access(), id)).rejects.toMatchObject({
        code: 'invalid_state',
      });
      await t.db.query(`UPDATE posts SET status = 'failed' WHERE id = $1`, [id]);
      await posts.remove(await access(), id);
      expect((await t.db.query('SELECT 1 FROM posts WHERE id = $1', [id])).rowCount).toBe(0);
    });

    it('deleting a scheduled post drops its delayed job; another project’s post is not found', async () => {
      const posts = t.app.get(PostsService);
      const id = (
        await create({
          text: 'Bye',
          targets: [{ channel_ref: channel.id }],
          // Within the schedule horizon, so that it holds a delayed job.
          scheduled_at: inSeconds(300),
        }).expect(201)
      ).body.id;
      await posts.remove(await access(), id);
      expect(await queue().getJob(`post:${id}:1`)).toBeNull();
      const otherProject = await make.project(await make.user('Elsewhere'));
      const foreign = {
        ...(await access()),
        project: { ...(await access()).project, id: otherProject.id },
      };
      const mine = (await create({ text: 'Mine' }).expect(201)).body.id;
      await expect(posts.get(foreign, mine)).rejects.toMatchObject({ code: 'post_not_found' });
    });
  });

  describe('GET /usage posts_this_month', () => {
    it('counts the posts the key’s user created this calendar month (UTC), not earlier ones or others’', async () => {
      const { project: own, key: userKey } = await make.owner('Counting');
      const usage = async () =>
        (
          await t.http
            .get('/api/public/v1/usage')
            .set('Authorization', `Bearer ${userKey}`)
            .expect(200)
        ).body.posts_this_month;
      expect(await usage()).toBe(0);
      const ids: number[] = [];
      for (let i = 0; i < 3; i++)
        ids.push(
          (
            await call('post', '/posts', userKey, own.id)
              .send({ text: `n${i}` })
              .expect(201)
          ).body.id,
        );
      await call('post', '/posts', key).send({ text: 'someone else’s' }).expect(201);
      expect(await usage()).toBe(3);
      await t.db.query(
        `UPDATE posts SET created_at = date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 microsecond' WHERE id = $1`,
        [ids[0]],
      );
      await t.db.query(
        `UPDATE posts SET created_at = date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' WHERE id = $1`,
        [ids[1]],
      );
      expect(await usage()).toBe(2);
    });
  });

  describe('OpenAPI', () => {
    it('documents the three routes, their bodies and every error answer', async () => {
      const doc = (await t.http.get('/api/public/v1/openapi.json').expect(200)).body;
      const base = '/api/public/v1/projects/{projectId}/posts';
      const create = doc.paths[base].post;
      expect(Object.keys(create.responses)).toEqual(
        expect.arrayContaining(['201', '400', '401', '403', '404', '413', '429']),
      );
      expect(create.responses['400'].description).toContain('channel_needs_reconnect');
      expect(create.requestBody.content['application/json'].schema.$ref).toContain('CreatePostDto');
      const schema = doc.components.schemas.CreatePostDto;
      expect(Object.keys(schema.properties)).toEqual(
        expect.arrayContaining(['text', 'targets', 'media_ids', 'scheduled_at', 'publish_now']),
      );
      expect(Object.keys(doc.paths[base].get.responses)).toEqual(
        expect.arrayContaining(['200', '400', '401', '403', '404', '429']),
      );
      const publish = doc.paths[`${base}/{postId}/publish`].post;
      expect(Object.keys(publish.responses)).toEqual(
        expect.arrayContaining(['202', '400', '401', '403', '404', '409', '429']),
      );
      expect(publish.responses['400'].description).toContain('too_many_media_files');
      expect(publish.responses['404'].description).toContain('post_not_found');
    });
  });
});

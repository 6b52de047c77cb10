import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Factory, SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { targetsOf, waitForPostStatus } from '../support/publication';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { TestApp } from '../support/test-app';

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'media', name));

interface PostItem {
  id: number;
  status: string;
  test: boolean;
  targets: {
    status: string;
    message_ids: number[];
    url: string | null;
    messages: { id: string; url: string | null }[];
    error: { code: string } | null;
  }[];
}

/** A test post's messages: the made-up ids as text, linked under example.invalid. */
const simulatedMessages = (channel: TestChannel, ids: number[]) =>
  ids.map((id) => ({
    id: String(id),
    url: `https://example.invalid/telegram/${channel.channel_id}/${id}`,
  }));

/**
 * Test mode end to end (docs/api-rules.md#test-mode): test keys, test posts through the whole
 * pipeline (queue, states, per-target results, usage) with a simulated publisher, and the two
 * worlds kept apart. The Telegram stand-in proves that no test delivery ever reaches the platform.
 */
describe('Test mode', () => {
  let world: TelegramWorld;
  let t: TestApp;
  let telegram: TelegramStandIn;
  let make: Factory;
  let owner: SignedInUser;
  let project: TestProject;
  let liveKey: string;
  let testKey: string;
  let channel: TestChannel;

  beforeAll(async () => {
    world = await startWithTelegram({
      PUBLICATION_RETRY_BASE_MS: '50',
      PUBLICATION_MAX_TRIES: '2',
      RATE_LIMIT_CREATE_POST: '1000',
      RATE_LIMIT_PUBLISH: '1000',
      RATE_LIMIT_OTHER: '1000',
    });
    ({ t, telegram, make } = world);
    ({ owner, project, key: liveKey } = await make.owner('Test mode'));
    testKey = await make.apiKey(owner, { mode: 'test' });
    const account = await make.telegramAccount(owner, project);
    channel = await make.channel(owner, account.id);
  });

  afterAll(async () => {
    await world?.close();
  });

  beforeEach(() => telegram.reset());

  const api = (key: string, method: 'get' | 'post', path: string) =>
    t.http[method](`/api/public/v1${path}`).set('Authorization', `Bearer ${key}`);
  const posts = () => `/projects/${project.id}/posts`;
  const create = async (key: string, body: Record<string, unknown>) =>
    (await api(key, 'post', posts()).send(body).expect(201)).body as PostItem;
  const list = async (key: string) =>
    (await api(key, 'get', `${posts()}?limit=100`).expect(200)).body.items as PostItem[];
  const sends = () => telegram.calls.filter((call) => call.method.startsWith('send'));

  describe('keys', () => {
    it('creates a test key hrld_test_… whose answers say mode test; live stays the default', async () => {
      const res = await t.http
        .post('/api/api-keys')
        .set('Authorization', owner.auth)
        .send({ name: 'sandbox', mode: 'test' })
        .expect(201);
      expect(res.body.key).toMatch(/^hrld_test_[A-Za-z0-9]{16}\.[A-Za-z0-9]{32,}$/);
      expect(res.body).toMatchObject({ mode: 'test', prefix: res.body.key.split('.')[0] });
      expect(testKey).toMatch(/^hrld_test_/);
      expect(liveKey).toMatch(/^hrld_live_/);

      const listed = await t.http.get('/api/api-keys').set('Authorization', owner.auth).expect(200);
      const modes = (listed.body.items as { prefix: string; mode: string }[]).map((k) => [
        k.prefix.slice(0, 10),
        k.mode,
      ]);
      expect(modes).toEqual(
        expect.arrayContaining([
          ['hrld_test_', 'test'],
          ['hrld_live_', 'live'],
        ]),
      );
    });

    it('refuses a mode other than live or test', async () => {
      const res = await t.http
        .post('/api/api-keys')
        .set('Authorization', owner.auth)
        .send({ name: 'x', mode: 'sandbox' })
        .expect(400);
      expect(res.body.error.code).toBe('validation_failed');
    });

    it('a test key presented with the live marker (or the reverse) is not a key: 401', async () => {
      for (const swapped of [
        testKey.replace('hrld_test_', 'hrld_live_'),
        liveKey.replace('hrld_live_', 'hrld_test_'),
      ]) {
        const res = await api(swapped, 'get', '/projects').expect(401);
        expect(res.body.error.code).toBe('unauthorized');
      }
      await api(testKey, 'get', '/projects').expect(200);
    });
  });

  describe('the pipeline, simulated', () => {
    it('publish_now: queued, then published with made-up message ids; Telegram receives nothing', async () => {
      const created = await create(testKey, {
        text: 'Hello from test mode',
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect(created).toMatchObject({ status: 'queued', test: true });
      expect((await waitForPostStatus(t, created.id)).status).toBe('published');

      const [target] = await targetsOf(t, created.id);
      expect(target).toMatchObject({ status: 'published', error_code: null });
      expect(target.message_ids).toHaveLength(1);
      expect(target.message_ids[0]).toBeGreaterThan(0);
      const item = (await list(testKey)).find((p) => p.id === created.id);
      expect(item).toMatchObject({ status: 'published', test: true });
      const messages = simulatedMessages(channel, target.message_ids);
      expect(item!.targets[0]).toMatchObject({
        message_ids: target.message_ids,
        url: messages[0].url,
        messages,
      });
      expect(telegram.calls).toEqual([]);
    });

    it('an album of three gets three message ids, as Telegram would answer', async () => {
      const ids: number[] = [];
      for (const name of ['sample.jpg', 'sample.png', 'sample.webp']) {
        const res = await api(testKey, 'post', `/projects/${project.id}/media`)
          .attach('files', fixture(name), name)
          .expect(201);
        ids.push(res.body.items[0].id as number);
      }
      const created = await create(testKey, {
        text: 'Album',
        media_ids: ids,
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, created.id)).status).toBe('published');
      const [target] = await targetsOf(t, created.id);
      expect(target.message_ids).toHaveLength(3);
      const item = (await list(testKey)).find((p) => p.id === created.id);
      expect(item!.targets[0].messages).toEqual(simulatedMessages(channel, target.message_ids));
      expect(telegram.calls).toEqual([]);
    });

    it('a draft published with POST publish, and a scheduled post, end published', async () => {
      const draft = await create(testKey, {
        text: 'Draft',
        targets: [{ channel_ref: channel.id }],
      });
      expect(draft).toMatchObject({ status: 'draft', test: true });
      const publishing = await api(testKey, 'post', `${posts()}/${draft.id}/publish`)
        .send({ targets: [{ channel_ref: channel.id }] })
        .expect(202);
      // Every answer about a test post says so, the publish answer too.
      expect(publishing.body).toEqual({ id: draft.id, status: 'publishing', test: true });
      expect((await waitForPostStatus(t, draft.id)).status).toBe('published');

      const scheduled = await create(testKey, {
        text: 'Later',
        targets: [{ channel_ref: channel.id }],
        scheduled_at: new Date(Date.now() + 1500).toISOString(),
      });
      expect(scheduled).toMatchObject({ status: 'scheduled', test: true });
      expect((await waitForPostStatus(t, scheduled.id)).status).toBe('published');
      expect(telegram.calls).toEqual([]);
    });

    it.each([
      ['platform_rejected', 1],
      ['delivery_unconfirmed', 1],
      ['delivery_failed', 2], // retried with backoff first, as a transient failure is
    ])(
      'the marker [simulate:%s] fails the target with that code',
      async (code: string, tries: number) => {
        const created = await create(testKey, {
          text: `Try my failure handling [simulate:${code}]`,
          targets: [{ channel_ref: channel.id }],
          publish_now: true,
        });
        expect((await waitForPostStatus(t, created.id)).status).toBe('failed');
        const [target] = await targetsOf(t, created.id);
        expect(target).toMatchObject({ status: 'failed', error_code: code, message_ids: [] });
        const { rows } = await t.db.query<{ failures: number }>(
          'SELECT failures FROM post_targets WHERE post_id = $1',
          [created.id],
        );
        expect(rows[0].failures).toBe(tries === 1 ? 0 : tries);
        expect(telegram.calls).toEqual([]);
      },
    );

    it('a live post still goes to Telegram (the stand-in is listening)', async () => {
      const created = await create(liveKey, {
        text: 'Live',
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect(created).toMatchObject({ test: false });
      expect((await waitForPostStatus(t, created.id)).status).toBe('published');
      expect(sends().map((call) => call.params.text)).toEqual(['Live']);

      const draft = await create(liveKey, { text: 'Live draft' });
      const publishing = await api(liveKey, 'post', `${posts()}/${draft.id}/publish`)
        .send({ targets: [{ channel_ref: channel.id }] })
        .expect(202);
      expect(publishing.body).toEqual({ id: draft.id, status: 'publishing', test: false });
      expect((await waitForPostStatus(t, draft.id)).status).toBe('published');
    });
  });

  describe('two worlds', () => {
    let livePost: PostItem;
    let testPost: PostItem;

    beforeAll(async () => {
      livePost = await create(liveKey, { text: 'live draft' });
      testPost = await create(testKey, { text: 'test draft' });
    });

    it('each key lists only its own kind of post', async () => {
      const seenByTest = await list(testKey);
      const seenByLive = await list(liveKey);
      expect(seenByTest.every((p) => p.test)).toBe(true);
      expect(seenByLive.every((p) => !p.test)).toBe(true);
      expect(seenByTest.map((p) => p.id)).toContain(testPost.id);
      expect(seenByTest.map((p) => p.id)).not.toContain(livePost.id);
      expect(seenByLive.map((p) => p.id)).toContain(livePost.id);
      expect(seenByLive.map((p) => p.id)).not.toContain(testPost.id);
    });

    it('the other kind’s post id is 404 post_not_found', async () => {
      for (const [key, post] of [
        [liveKey, testPost],
        [testKey, livePost],
      ] as const) {
        const res = await api(key, 'post', `${posts()}/${post.id}/publish`)
          .send({ targets: [{ channel_ref: channel.id }] })
          .expect(404);
        expect(res.body.error.code).toBe('post_not_found');
      }
      for (const [key, own, other] of [
        [liveKey, livePost, testPost],
        [testKey, testPost, livePost],
      ] as const) {
        const res = await api(key, 'get', `${posts()}/${other.id}`).expect(404);
        expect(res.body.error.code).toBe('post_not_found');
        const mine = await api(key, 'get', `${posts()}/${own.id}`).expect(200);
        expect(mine.body).toMatchObject({ id: own.id, test: own.test });
      }
      // The application API works with live posts: a test post is not found there either.
      const res = await t.http
        .delete(`/api/posts/${testPost.id}`)
        .set('Authorization', owner.auth)
        .expect(404);
      expect(res.body.error.code).toBe('post_not_found');
      const { rows } = await t.db.query('SELECT id FROM posts WHERE id = $1', [testPost.id]);
      expect(rows).toHaveLength(1);
    });

    it('usage counts live posts only', async () => {
      const { rows } = await t.db.query<{ test: boolean; n: number }>(
        'SELECT test, count(*)::int AS n FROM posts WHERE created_by_user_id = $1 GROUP BY test',
        [owner.id],
      );
      const live = rows.find((r) => !r.test)?.n ?? 0;
      expect(rows.find((r) => r.test)?.n).toBeGreaterThan(0);
      for (const key of [liveKey, testKey]) {
        const res = await api(key, 'get', '/usage').expect(200);
        expect(res.body.posts_this_month).toBe(live);
      }
    });
  });

  describe('analytics', () => {
    it('counts live posts only: a published test post leaves every channel’s counts as they were', async () => {
      const counts = async () =>
        (
          await t.http
            .get(`/api/analytics/channels?project_id=${project.id}`)
            .set('Authorization', owner.auth)
            .expect(200)
        ).body.items.find((item: { id: string }) => item.id === channel.id);
      const before = await counts();
      const sandbox = await create(testKey, {
        text: 'Not counted',
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, sandbox.id)).status).toBe('published');
      expect(await counts()).toEqual(before);

      const live = await create(liveKey, {
        text: 'Counted',
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, live.id)).status).toBe('published');
      expect(await counts()).toEqual({ ...before, published: before.published + 1 });
    });
  });
});

import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { PublicationRepository } from '../../src/domains/publication/publication.repository';
import { PublicationService } from '../../src/domains/publication/publication.service';
import { TelegramPacing } from '../../src/domains/platforms/telegram/telegram-pacing';
import { Factory, SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { targetsOf, waitForPostStatus, withWorkerPaused } from '../support/publication';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { TestApp } from '../support/test-app';
import { MICROS } from '../support/expectations';
import { fixture } from '../support/factories/media-helpers';
import { sleep } from '../support/waits';

/** A public chat's messages as a target lists them: Telegram's ids as text, with their t.me links. */
const publicMessages = (username: string | null, ids: number[]) =>
  ids.map((id) => ({ id: String(id), url: `https://t.me/${username}/${id}` }));

/** A step's answer as the pipeline writes it: one message, with no link. */
const sent = (id: number) => ({ messages: [{ id: String(id), url: null }], listedIds: [id] });

/**
 * The publication pipeline end to end: Bull on the real Redis, the real database, and the
 * Telegram stand-in recording what it received (docs/api-rules.md#post-states,
 * docs/api-rules.md#delivery).
 */
describe('Publication pipeline', () => {
  let world: TelegramWorld;
  let t: TestApp;
  let telegram: TelegramStandIn;
  let make: Factory;
  let owner: SignedInUser;
  let key: string;
  let project: TestProject;
  let account: { id: number; token: string };
  let channel: TestChannel;
  let second: { account: { id: number; token: string }; channel: TestChannel };

  beforeAll(async () => {
    world = await startWithTelegram({
      PUBLICATION_RETRY_BASE_MS: '50',
      PUBLICATION_SEND_TIMEOUT_MS: '700',
      PUBLICATION_SWEEP_INTERVAL_MS: '300',
      PUBLICATION_ENQUEUE_TIMEOUT_MS: '200',
      TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '6000',
      RATE_LIMIT_CREATE_POST: '1000',
      RATE_LIMIT_PUBLISH: '1000',
      RATE_LIMIT_OTHER: '1000',
      RATE_LIMIT_UPLOAD: '1000',
    });
    ({ t, telegram, make } = world);
    ({
      owner,
      project,
      key,
      account,
      channels: [channel],
    } = await make.ownerWithChannels('Pipeline'));
    const secondAccount = await make.telegramAccount(owner, project);
    second = { account: secondAccount, channel: await make.channel(owner, secondAccount.id) };
  });

  afterAll(async () => {
    await world?.close();
  });

  beforeEach(() => telegram.reset());

  const api = (method: 'get' | 'post', path: string) =>
    t.http[method](`/api/public/v1/projects/${project.id}${path}`).set(
      'Authorization',
      `Bearer ${key}`,
    );
  const createPost = async (body: Record<string, unknown>) =>
    (await api('post', '/posts').send(body).expect(201)).body as {
      id: number;
      status: string;
      scheduled_at: string | null;
    };
  const upload = async (name: string) => {
    const res = await api('post', '/media').attach('files', fixture(name), name).expect(201);
    return (res.body as { items: { id: number }[] }).items[0].id;
  };
  const sends = () => telegram.calls.filter((c) => c.method.startsWith('send'));
  const listItem = async (id: number) => {
    const res = await api('get', '/posts?limit=100').expect(200);
    return (res.body.items as { id: number }[]).find((item) => item.id === id) as Record<
      string,
      unknown
    >;
  };

  describe('post state transitions', () => {
    it('publish_now: queued → publishing → published; sendMessage with the text, message id stored', async () => {
      const post = await createPost({
        text: 'Hello, Telegram',
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect(post.status).toBe('queued');

      const state = await waitForPostStatus(t, post.id);

      expect(state.status).toBe('published');
      expect(sends()).toHaveLength(1);
      expect(sends()[0]).toMatchObject({
        token: account.token,
        method: 'sendMessage',
        params: { chat_id: channel.channel_id, text: 'Hello, Telegram' },
      });
      const [target] = await targetsOf(t, post.id);
      expect(target.status).toBe('published');
      expect(target.message_ids).toHaveLength(1);
      const messages = publicMessages(channel.username, target.message_ids);
      const item = await listItem(post.id);
      expect(item).toMatchObject({
        status: 'published',
        platform: 'telegram',
        channel_ids: [channel.channel_id],
        published_at: expect.stringMatching(MICROS),
        targets: [
          {
            channel_ref: channel.id,
            status: 'published',
            error: null,
            message_ids: target.message_ids,
            url: `https://t.me/${channel.username}/${target.message_ids[0]}`,
            messages,
          },
        ],
      });
      const one = await api('get', `/posts/${post.id}`).expect(200);
      expect(one.body.targets[0]).toMatchObject({ url: messages[0].url, messages });
    });

    it('a private channel links its messages by its id without -100; a target not published has no url', async () => {
      const chatId = -1009000000000 - process.pid;
      telegram.addChat({ id: chatId, type: 'channel', title: 'Private' });
      const res = await t.http
        .post(`/api/accounts/${account.id}/channels`)
        .set('Authorization', owner.auth)
        .send({ chat: String(chatId) })
        .expect(201);
      const privateChannel = res.body as TestChannel;
      expect(privateChannel.username).toBeNull();
      const draft = await createPost({
        text: 'Not yet',
        targets: [{ channel_ref: privateChannel.id }],
      });
      expect((await listItem(draft.id)).targets).toEqual([
        expect.objectContaining({ url: null, messages: [] }),
      ]);
      const post = await createPost({
        text: 'Members only',
        targets: [{ channel_ref: privateChannel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, post.id)).status).toBe('published');
      const [target] = await targetsOf(t, post.id);
      const id = target.message_ids[0];
      const url = `https://t.me/c/${String(chatId).slice('-100'.length)}/${id}`;
      expect((await listItem(post.id)).targets).toEqual([
        expect.objectContaining({ url, messages: [{ id: String(id), url }] }),
      ]);
    });

    it('draft → publishing on POST publish (202), body targets replace the stored ones', async () => {
      const post = await createPost({
        text: 'Draft first',
        targets: [{ channel_ref: channel.id }],
      });
      expect(post.status).toBe('draft');
      await sleep(100);
      expect(sends()).toHaveLength(0);

      const res = await api('post', `/posts/${post.id}/publish`)
        .send({ targets: [{ channel_ref: second.channel.id }] })
        .expect(202);

      expect(res.body).toEqual({ id: post.id, status: 'publishing', test: false });
      expect((await waitForPostStatus(t, post.id)).status).toBe('published');
      expect(sends().map((c) => c.params.chat_id)).toEqual([second.channel.channel_id]);
      expect((await targetsOf(t, post.id)).map((x) => x.chat_id)).toEqual([
        second.channel.channel_id,
      ]);
    });

    it('failed → publishing on POST publish: a failed target left out of the body is dropped, a published one stays unsent', async () => {
      const third = await make.channel(owner, account.id);
      telegram.script('sendMessage', { status: 400, description: 'Bad Request: chat not found' });
      const post = await createPost({
        text: 'Second chance',
        targets: [{ channel_ref: channel.id }, { channel_ref: second.channel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, post.id)).status).toBe('failed');
      expect((await targetsOf(t, post.id)).map((x) => [x.chat_id, x.status])).toEqual([
        [channel.channel_id, 'failed'],
        [second.channel.channel_id, 'published'],
      ]);

      telegram.reset();
      await api('post', `/posts/${post.id}/publish`)
        .send({ targets: [{ channel_ref: third.id }] })
        .expect(202);
      expect((await waitForPostStatus(t, post.id)).status).toBe('published');
      expect(sends().map((c) => c.params.chat_id)).toEqual([third.channel_id]);
      expect((await targetsOf(t, post.id)).map((x) => [x.chat_id, x.status])).toEqual([
        [second.channel.channel_id, 'published'],
        [third.channel_id, 'published'],
      ]);
    });

    it('scheduled → publishing early on POST publish; the delayed job is dropped, one message only', async () => {
      const at = new Date(Date.now() + 60_000).toISOString();
      const post = await createPost({
        text: 'Early bird',
        targets: [{ channel_ref: channel.id }],
        scheduled_at: at,
      });
      expect(post.status).toBe('scheduled');
      const queue = t.app.get<Queue>(getQueueToken('publication'));
      expect(await (await queue.getJob(`post:${post.id}:1`))?.getState()).toBe('delayed');

      await api('post', `/posts/${post.id}/publish`)
        .send({ targets: [{ channel_ref: channel.id }] })
        .expect(202);

      expect((await waitForPostStatus(t, post.id)).status).toBe('published');
      expect(await queue.getJob(`post:${post.id}:1`)).toBeNull();
      // Even if the old job fired now, its attempt no longer matches: nothing is sent.
      await queue.add({ postId: post.id, attempt: 1 }, { jobId: `post:${post.id}:1:again` });
      await sleep(300);
      expect(sends()).toHaveLength(1);
    });

    it('queued, publishing and published answer 409 invalid_state to POST publish', async () => {
      const post = await createPost({ text: 'Busy', targets: [{ channel_ref: channel.id }] });
      for (const status of ['queued', 'publishing', 'published']) {
        await t.db.query('UPDATE posts SET status = $2 WHERE id = $1', [post.id, status]);
        const res = await api('post', `/posts/${post.id}/publish`)
          .send({ targets: [{ channel_ref: channel.id }] })
          .expect(409);
        expect(res.body.error.code).toBe('invalid_state');
      }
      expect(sends()).toHaveLength(0);
    });

    it('a job that runs twice sends nothing the second time (state guard)', async () => {
      const post = await createPost({
        text: 'Once',
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      await waitForPostStatus(t, post.id);
      const queue = t.app.get<Queue>(getQueueToken('publication'));
      // The first run's job stays in the queue's history under its id, so the second run is a
      // job of its own with the same attempt, as a duplicate delivery of the queue would be.
      const again = `post:${post.id}:1:again`;
      const completed = new Promise<void>((resolve) =>
        queue.on('completed', (job) => {
          if (job.id === again) resolve();
        }),
      );
      await queue.add({ postId: post.id, attempt: 1 }, { jobId: again });
      await completed;
      expect(sends()).toHaveLength(1);
    });

    it('jobs claiming, starting and finishing sends at the same moment share statements, each row with its own guard', async () => {
      const repo = t.app.get(PublicationRepository);
      await withWorkerPaused(t, async (resume) => {
        const posts = await Promise.all(
          ['Batch 1', 'Batch 2', 'Batch 3'].map((text, i) =>
            createPost({
              text,
              targets: [{ channel_ref: i === 1 ? second.channel.id : channel.id }],
              publish_now: true,
            }),
          ),
        );
        const [p1, p2, p3] = posts.map((p) => p.id);
        // At once: the first goes alone, the rest share the next statement (one per post).
        const claims = await Promise.all([
          repo.claim(p1, 1),
          repo.claim(p2, 2), // an attempt that is not the post's: nothing
          repo.claim(p3, 1),
          repo.claim(p1, 1), // the same post again: its own statement, still its attempt
        ]);
        expect(claims.map((c) => c?.id ?? null)).toEqual([p1, null, p3, p1]);
        const statusOf = async (id: number) =>
          (await t.db.query<{ status: string }>('SELECT status FROM posts WHERE id = $1', [id]))
            .rows[0].status;
        expect(await statusOf(p2)).toBe('queued'); // untouched by the statement it shared
        expect(claims[0]).toEqual({
          id: p1,
          text: 'Batch 1',
          test: false,
          media: [],
          thread: [],
          split_long_text: false,
          targets: [expect.objectContaining({ chat_id: channel.channel_id, steps_done: 0 })],
        });
        const [t1, t3] = [claims[0]!.targets[0].id, claims[2]!.targets[0].id];
        const started = await Promise.all([
          repo.startSend(t1, 0),
          repo.startSend(t1, 0), // another run of the same send: refused
          repo.startSend(t3, 1), // not the step the target is at: refused
        ]);
        expect(started).toEqual([true, false, false]);
        expect(await repo.startSend(t3, 0)).toBe(true);
        const published = await Promise.all([
          repo.stepSent({ id: t1, postId: p1, attempt: 1 }, sent(101), true),
          repo.stepSent({ id: t3, postId: p3, attempt: 2 }, sent(103), true), // superseded attempt
        ]);
        expect(published).toEqual([true, false]);
        expect((await waitForPostStatus(t, p1)).status).toBe('published');
        expect(await targetsOf(t, p1)).toEqual([
          expect.objectContaining({ status: 'published', message_ids: [101] }),
        ]);
        // p3's target was delivered under a stale attempt: the post stays publishing.
        expect(await statusOf(p3)).toBe('publishing');
        expect(sends()).toHaveLength(0);
        await resume();
        // The jobs run now: p2 is delivered, p3 has nothing left to send and is published.
        expect((await waitForPostStatus(t, p2)).status).toBe('published');
        expect((await waitForPostStatus(t, p3)).status).toBe('published');
        expect(sends()).toHaveLength(1);
      });
    });

    it("a claim marks its post's first send in flight when that bot has room, and only then", async () => {
      const repo = t.app.get(PublicationRepository);
      await withWorkerPaused(t, async (resume) => {
        const both = [{ channel_ref: channel.id }, { channel_ref: second.channel.id }];
        const a = await createPost({ text: 'Mark 1', targets: both, publish_now: true });
        const b = await createPost({ text: 'Mark 2', targets: both, publish_now: true });
        const claimedA = (await repo.claim(a.id, 1, [account.id]))!;
        // Only the first target is marked, and it comes back as it was before the claim.
        expect(claimedA.targets.map((x) => [x.marked, x.sending_since])).toEqual([
          [true, null],
          [false, null],
        ]);
        // Its first target's bot is not among those with room: nothing is marked.
        const claimedB = (await repo.claim(b.id, 1, [second.account.id]))!;
        expect(claimedB.targets.map((x) => x.marked)).toEqual([false, false]);
        const inFlight = await t.db.query<{ id: number }>(
          'SELECT id FROM post_targets WHERE post_id = ANY($1::int[]) AND sending_since IS NOT NULL',
          [[a.id, b.id]],
        );
        expect(inFlight.rows.map((r) => r.id)).toEqual([claimedA.targets[0].id]);
        // The marked send is held: another run can neither start it nor mark it again.
        expect(await repo.startSend(claimedA.targets[0].id, 0)).toBe(false);
        const again = (await repo.claim(a.id, 1, [account.id]))!;
        expect(again.targets[0].marked).toBe(false);
        expect(again.targets[0].sending_since).not.toBeNull();
        // The run that marked it gives it back (its slot was not now); the jobs deliver both posts.
        await repo.sendNotDelivered(claimedA.targets[0].id, false);
        await resume();
        expect((await waitForPostStatus(t, a.id)).status).toBe('published');
        expect((await waitForPostStatus(t, b.id)).status).toBe('published');
        expect(sends()).toHaveLength(4);
      });
    });

    it('a send the claim marked but that cannot start (unreadable credentials) is not left in flight', async () => {
      const publication = t.app.get(PublicationService);
      const other = await make.telegramAccount(owner, project);
      const target = await make.channel(owner, other.id);
      // Its bot had room at its last send here, so the claim marks the send.
      await t.app
        .get(TelegramPacing)
        .reserve({ accountId: other.id, channelId: target.channel_id, cost: 1 });
      await withWorkerPaused(t, async () => {
        const post = await createPost({
          text: 'Unreadable',
          targets: [{ channel_ref: target.id }],
          publish_now: true,
        });
        await t.db.query(`UPDATE accounts SET credentials_encrypted = 'garbled' WHERE id = $1`, [
          other.id,
        ]);
        await expect(publication.run(post.id, 1)).rejects.toThrow();
        const { rows } = await t.db.query(
          'SELECT status, sending_since FROM post_targets WHERE post_id = $1',
          [post.id],
        );
        expect(rows).toEqual([{ status: 'pending', sending_since: null }]);
        expect(sends()).toHaveLength(0);
        await t.db.query(`DELETE FROM posts WHERE id = $1`, [post.id]);
      });
    });

    it('a scheduled post a few seconds ahead is published within one second of its time', async () => {
      const post = await createPost({
        text: 'On time',
        targets: [{ channel_ref: channel.id }],
        scheduled_at: new Date(Date.now() + 2_000).toISOString().replace('Z', '+00:00'),
      });
      await waitForPostStatus(t, post.id, ['published']);
      const { rows } = await t.db.query(
        `SELECT extract(epoch FROM published_at - scheduled_at)::float8 AS late FROM posts WHERE id = $1`,
        [post.id],
      );
      expect(rows[0].late).toBeGreaterThanOrEqual(0);
      expect(rows[0].late).toBeLessThan(1);
      expect(sends()).toHaveLength(1);
      expect(telegram.calls[0].at).toBeGreaterThanOrEqual(Date.parse(post.scheduled_at + 'Z'));
    });
  });

  describe('delivery to Telegram', () => {
    it('one photo: sendPhoto with the file uploaded from storage and the text as caption', async () => {
      const media = await upload('sample.png');
      const post = await createPost({
        text: 'A picture',
        media_ids: [media],
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, post.id)).status).toBe('published');
      expect(sends()).toHaveLength(1);
      const [call] = sends();
      expect(call.method).toBe('sendPhoto');
      expect(call.params).toEqual({ chat_id: channel.channel_id, caption: 'A picture' });
      expect(call.files).toHaveLength(1);
      expect(call.files[0].field).toBe('photo');
      expect(call.files[0].mimeType).toBe('image/png');
      expect(call.files[0].bytes.equals(fixture('sample.png'))).toBe(true);
    });

    it('one video: sendVideo with the file and caption', async () => {
      const media = await upload('sample.mp4');
      const post = await createPost({
        text: 'A clip',
        media_ids: [media],
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, post.id)).status).toBe('published');
      const [call] = sends();
      expect(call.method).toBe('sendVideo');
      expect(call.params).toEqual({ chat_id: channel.channel_id, caption: 'A clip' });
      expect(call.files.map((f) => f.field)).toEqual(['video']);
      expect(call.files[0].bytes.equals(fixture('sample.mp4'))).toBe(true);
    });

    it('an album: sendMediaGroup in media_ids order, caption on the first, every message id kept', async () => {
      const ids = [
        await upload('sample.jpg'),
        await upload('sample.png'),
        await upload('sample.mp4'),
      ];
      const post = await createPost({
        text: 'Album',
        media_ids: ids,
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, post.id)).status).toBe('published');
      const [call] = sends();
      expect(sends()).toHaveLength(1);
      expect(call.method).toBe('sendMediaGroup');
      expect(call.params.chat_id).toBe(channel.channel_id);
      expect(call.params.media).toEqual([
        { type: 'photo', media: 'attach://file0', caption: 'Album' },
        { type: 'photo', media: 'attach://file1' },
        { type: 'video', media: 'attach://file2' },
      ]);
      expect(call.files.map((f) => f.field)).toEqual(['file0', 'file1', 'file2']);
      expect(call.files[0].bytes.equals(fixture('sample.jpg'))).toBe(true);
      expect(call.files[1].bytes.equals(fixture('sample.png'))).toBe(true);
      expect(call.files[2].bytes.equals(fixture('sample.mp4'))).toBe(true);
      const [target] = await targetsOf(t, post.id);
      expect(target.message_ids).toHaveLength(3);
      const item = await listItem(post.id);
      expect(item.media_ids).toEqual(ids);
      // Every message of the album, in order; the target's link is its first message's.
      const messages = publicMessages(channel.username, target.message_ids);
      expect(item.targets).toEqual([expect.objectContaining({ url: messages[0].url, messages })]);
    });

    it('text longer than a caption goes as its own message after the media', async () => {
      const text = 'x'.repeat(1025);
      const post = await createPost({
        text,
        media_ids: [await upload('sample.png'), await upload('sample.webp')],
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, post.id)).status).toBe('published');
      expect(sends().map((c) => c.method)).toEqual(['sendMediaGroup', 'sendMessage']);
      expect(sends()[0].params.media).toEqual([
        { type: 'photo', media: 'attach://file0' },
        { type: 'photo', media: 'attach://file1' },
      ]);
      expect(sends()[1].params).toEqual({ chat_id: channel.channel_id, text });
      const [target] = await targetsOf(t, post.id);
      expect(target.message_ids).toHaveLength(3);
      expect((await listItem(post.id)).targets).toEqual([
        expect.objectContaining({ messages: publicMessages(channel.username, target.message_ids) }),
      ]);
    });

    it('a retry resumes where the delivery stopped: the album is not sent again when the long text failed', async () => {
      const text = 'y'.repeat(1025);
      telegram.script('sendMessage', { status: 500, description: 'Internal Server Error' });
      const post = await createPost({
        text,
        media_ids: [await upload('sample.png'), await upload('sample.webp')],
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, post.id)).status).toBe('published');
      expect(sends().map((c) => c.method)).toEqual([
        'sendMediaGroup',
        'sendMessage',
        'sendMessage',
      ]);
      const [target] = await targetsOf(t, post.id);
      expect(target).toMatchObject({ status: 'published', error_code: null });
      expect(target.message_ids).toHaveLength(3);
    });

    it('429 with retry_after: waits that long, one message in the end', async () => {
      telegram.script('sendMessage', {
        status: 429,
        retryAfter: 1,
        description: 'Too Many Requests: retry after 1',
      });
      const post = await createPost({
        text: 'Patience',
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, post.id)).status).toBe('published');
      const calls = telegram.callsOf('sendMessage');
      expect(calls).toHaveLength(2);
      expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(950);
      const [target] = await targetsOf(t, post.id);
      expect(target).toMatchObject({ status: 'published', error_code: null });
      expect(target.message_ids).toHaveLength(1);
    });

    it('500 then success: retried with backoff, published once', async () => {
      telegram.script('sendMessage', { status: 500, description: 'Internal Server Error' });
      const post = await createPost({
        text: 'Retry me',
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, post.id)).status).toBe('published');
      expect(telegram.callsOf('sendMessage')).toHaveLength(2);
      expect((await targetsOf(t, post.id))[0].status).toBe('published');
    });

    it('5xx on every try: the target fails with delivery_failed after PUBLICATION_MAX_TRIES', async () => {
      telegram.script('sendMessage', ...Array.from({ length: 5 }, () => ({ status: 502 })));
      const post = await createPost({
        text: 'Never',
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, post.id)).status).toBe('failed');
      expect(telegram.callsOf('sendMessage')).toHaveLength(5);
      expect((await targetsOf(t, post.id))[0]).toMatchObject({
        status: 'failed',
        error_code: 'delivery_failed',
      });
    });

    it('401: the account is flagged needs_reconnect, its target fails, the other target is delivered', async () => {
      telegram.script('sendMessage', { status: 401, description: 'Unauthorized' });
      const post = await createPost({
        text: 'Half',
        targets: [{ channel_ref: channel.id }, { channel_ref: second.channel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, post.id)).status).toBe('failed');
      expect(telegram.callsOf('sendMessage').map((c) => c.params.chat_id)).toEqual([
        channel.channel_id,
        second.channel.channel_id,
      ]);
      const { rows } = await t.db.query('SELECT needs_reconnect FROM accounts WHERE id = $1', [
        account.id,
      ]);
      expect(rows[0].needs_reconnect).toBe(true);
      const item = await listItem(post.id);
      expect(item.status).toBe('failed');
      expect(item.published_at).toBeNull();
      expect(item.targets).toEqual([
        expect.objectContaining({
          channel_ref: channel.id,
          status: 'failed',
          error: { code: 'account_needs_reconnect', message: expect.stringContaining('401') },
        }),
        expect.objectContaining({
          channel_ref: second.channel.id,
          status: 'published',
          error: null,
        }),
      ]);

      // Re-publish after reconnecting: only the failed target is sent; no channel gets it twice.
      await t.http
        .put(`/api/accounts/${account.id}`)
        .set('Authorization', owner.auth)
        .send({ bot_token: account.token })
        .expect(200);
      telegram.reset();
      await api('post', `/posts/${post.id}/publish`)
        .send({ targets: [{ channel_ref: channel.id }, { channel_ref: second.channel.id }] })
        .expect(202);
      expect((await waitForPostStatus(t, post.id)).status).toBe('published');
      expect(sends().map((c) => c.params.chat_id)).toEqual([channel.channel_id]);
      expect((await targetsOf(t, post.id)).map((x) => x.status)).toEqual([
        'published',
        'published',
      ]);
    });

    it('403 from Telegram also flags the account and fails the target', async () => {
      const acc = await make.telegramAccount(owner, project);
      const ch = await make.channel(owner, acc.id);
      telegram.script('sendMessage', { status: 403, description: 'Forbidden: bot was kicked' });
      const post = await createPost({
        text: 'Kicked',
        targets: [{ channel_ref: ch.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, post.id)).status).toBe('failed');
      const { rows } = await t.db.query('SELECT needs_reconnect FROM accounts WHERE id = $1', [
        acc.id,
      ]);
      expect(rows[0].needs_reconnect).toBe(true);
      expect((await targetsOf(t, post.id))[0].error_code).toBe('account_needs_reconnect');
    });

    it('a send with no answer fails with delivery_unconfirmed and is not retried blindly', async () => {
      telegram.script('sendMessage', { status: 200, hang: true });
      const post = await createPost({
        text: 'Lost in transit',
        targets: [{ channel_ref: channel.id }],
        publish_now: true,
      });
      expect((await waitForPostStatus(t, post.id)).status).toBe('failed');
      await sleep(200);
      expect(telegram.callsOf('sendMessage')).toHaveLength(1);
      expect((await targetsOf(t, post.id))[0]).toMatchObject({
        status: 'failed',
        error_code: 'delivery_unconfirmed',
      });
    });

    it('a worker that died mid-send: the sweep re-enqueues the stuck post and the target fails unconfirmed, unsent', async () => {
      const post = await createPost({ text: 'Crashed', targets: [{ channel_ref: channel.id }] });
      // What a worker killed between sending and recording leaves behind, and its job lost.
      await t.db.query(
        `UPDATE posts SET status = 'publishing', publish_attempt = 1, updated_at = now() - interval '1 minute' WHERE id = $1`,
        [post.id],
      );
      await t.db.query(`UPDATE post_targets SET sending_since = now() WHERE post_id = $1`, [
        post.id,
      ]);
      expect((await waitForPostStatus(t, post.id)).status).toBe('failed');
      expect(sends()).toHaveLength(0);
      expect((await targetsOf(t, post.id))[0].error_code).toBe('delivery_unconfirmed');
    });

    it('a channel whose account needs reconnect at delivery time fails without a send', async () => {
      const acc = await make.telegramAccount(owner, project);
      const ch = await make.channel(owner, acc.id);
      const post = await createPost({
        text: 'Later',
        targets: [{ channel_ref: ch.id }],
        scheduled_at: new Date(Date.now() + 3_000).toISOString(),
      });
      await make.refuseAccount(project, key, ch);
      expect((await waitForPostStatus(t, post.id)).status).toBe('failed');
      expect(sends()).toHaveLength(0);
      expect((await targetsOf(t, post.id))[0].error_code).toBe('channel_needs_reconnect');
    });
  });
});

import { BlueskyStandIn } from '../support/stand-ins/bluesky-stand-in';
import {
  BLUESKY_FAST,
  type BlueskyWorld,
  type ConnectedBluesky,
  startWithBluesky,
} from '../support/factories/bluesky-world';
import { Factory, SignedInUser, TestProject } from '../support/factories/factories';
import { fixture, pngOf } from '../support/factories/media-helpers';
import { projectApi } from '../support/factories/project-api';
import { targetsOf, waitForPostStatus } from '../support/publication';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { waitFor } from '../support/waits';

const FAST = { ...BLUESKY_FAST, PUBLICATION_SEND_TIMEOUT_MS: '700' };

type Connected = ConnectedBluesky<ReturnType<BlueskyStandIn['addAccount']>>;

/** A family (man, woman, girl, boy): one grapheme of 25 UTF-8 bytes. */
const FAMILY = '👨‍👩‍👧‍👦';

/**
 * Bluesky end to end through Herald's HTTP API against an XRPC stand-in: accounts connected with
 * an app password (one session, kept), posts as records with link facets and image embeds, the
 * limits counted in graphemes and UTF-8 bytes, sessions renewed once for every worker, and a send
 * whose answer was lost found again by its record key.
 */
describe('Bluesky', () => {
  let bsky: BlueskyStandIn;
  let world: BlueskyWorld;
  let t: TestApp;
  let make: Factory;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;
  let main: Connected;

  beforeAll(async () => {
    bsky = await new BlueskyStandIn().start();
    // Webhook receivers listen on 127.0.0.2; the stand-in's 127.0.0.1 stays a refused address.
    world = await startWithBluesky(bsky, 'Bluesky', {
      ...FAST,
      BLUESKY_SERVICE_URL: bsky.url,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.2/32',
    });
    ({ t, make, owner, project, key } = world);
    main = await connect();
  });

  afterAll(() => world?.close());

  const connect = (): Promise<Connected> => world.connect(bsky.addAccount());
  const { api, upload } = projectApi(() => ({ t, project, key }));
  const publish = (target: Connected, body: Record<string, unknown>) => world.publish(target, body);
  const post = async (id: number) => (await api('get', `/posts/${id}`).expect(200)).body;

  describe('connecting', () => {
    it('connects with an app password: one session, kept sealed; its feed is its one channel', async () => {
      const before = bsky.sessionsCreated;
      const connected = await connect();
      expect(bsky.sessionsCreated).toBe(before + 1);
      const [session] = bsky.callsOf('server.createSession').slice(-1);
      expect(session.json).toEqual({
        identifier: connected.handle,
        password: connected.account.appPassword,
      });
      const { rows } = await t.db.query(
        'SELECT credentials_encrypted, session_encrypted FROM accounts WHERE id = $1',
        [connected.id],
      );
      expect(rows[0].credentials_encrypted).not.toContain(connected.account.appPassword);
      expect(rows[0].session_encrypted).toEqual(expect.any(String));
      expect(rows[0].session_encrypted).not.toContain('access.');

      const channels = await api('get', '/channels').expect(200);
      const item = (channels.body.items as { id: string }[]).find((c) => c.id === connected.ref);
      expect(item).toEqual({
        id: connected.ref,
        platform: 'bluesky',
        account_id: connected.id,
        channel_id: connected.did,
        title: connected.handle,
        username: connected.handle,
        needs_reconnect: false,
        url: `https://bsky.app/profile/${connected.handle}`,
        limits: {
          text_max: 300,
          text_unit: 'graphemes',
          text_max_bytes: 3000,
          media_max: 4,
          media_kinds: ['image'],
          media_max_bytes: { image: 2_000_000 },
        },
        missing_since: null,
        reconnect_by: null,
      });
    });

    it('refuses a wrong app password (bluesky_rejected) and stores nothing', async () => {
      const account = bsky.addAccount();
      const res = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send({
          project_id: project.id,
          platform: 'bluesky',
          identifier: account.handle,
          app_password: 'wrong-wrong-wrong',
        })
        .expect(400);
      expect(res.body.error).toEqual({
        code: 'bluesky_rejected',
        message: 'Bluesky rejected the request: Invalid identifier or password',
      });
      const { rows } = await t.db.query(
        "SELECT count(*)::int AS n FROM accounts WHERE platform = 'bluesky' AND external_id = $1",
        [account.did],
      );
      expect(rows[0].n).toBe(0);
    });

    it("refuses a loopback service_url unless the outbound allow-list covers it, and another platform's field", async () => {
      const account = bsky.addAccount();
      const body = {
        project_id: project.id,
        platform: 'bluesky',
        identifier: account.handle,
        app_password: account.appPassword,
      };
      const refused = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send({ ...body, service_url: bsky.url })
        .expect(400);
      expect(refused.body.error.code).toBe('url_not_allowed');
      const foreign = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send({ ...body, bot_token: 'x' })
        .expect(400);
      expect(foreign.body.error.code).toBe('validation_failed');
      expect(foreign.body.error.message).toContain('bot_token is not a field of a Bluesky account');

      // An instance whose outbound allow-list covers the stand-in connects and posts through it.
      const allowing = await startTestApp({
        ...FAST,
        BLUESKY_SERVICE_URL: 'http://127.0.0.1:9',
        OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
      });
      try {
        const mine = await new Factory(allowing).owner('Own service');
        const res = await allowing.http
          .post('/api/accounts')
          .set('Authorization', mine.owner.auth)
          .send({ ...body, project_id: mine.project.id, service_url: bsky.url })
          .expect(201);
        const ref = `bluesky:${res.body.id}:${account.did}`;
        const created = await allowing.http
          .post(`/api/public/v1/projects/${mine.project.id}/posts`)
          .set('Authorization', `Bearer ${mine.key}`)
          .send({ text: 'From my own service', targets: [{ channel_ref: ref }], publish_now: true })
          .expect(201);
        expect((await waitForPostStatus(allowing, created.body.id as number)).status).toBe(
          'published',
        );
        expect(bsky.recordsOf(account.did)).toHaveLength(1);
      } finally {
        await allowing.close();
      }
    });

    it('adds no channel by hand: the feed came with the account', async () => {
      const res = await t.http
        .post(`/api/accounts/${main.id}/channels`)
        .set('Authorization', owner.auth)
        .send({ channel_id: 'anything' })
        .expect(400);
      expect(res.body.error.code).toBe('channels_not_addable');
    });
  });

  describe('publishing', () => {
    it('posts text as a record with link facets whose byte offsets count Cyrillic and emoji', async () => {
      const text = 'Привет 👋🏽 https://example.com/путь и http://herald.test/a?b=1 конец';
      const postId = await publish(main, { text });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const [create] = bsky.callsOf('repo.createRecord').slice(-1);
      const input = create.json as {
        repo: string;
        collection: string;
        rkey: string;
        record: Record<string, unknown>;
      };
      expect(input.repo).toBe(main.did);
      expect(input.collection).toBe('app.bsky.feed.post');
      expect(input.rkey).toMatch(/^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/);
      const bytes = Buffer.from(text, 'utf8');
      const at = (s: string) => bytes.indexOf(Buffer.from(s, 'utf8'));
      const first = 'https://example.com/путь';
      const second = 'http://herald.test/a?b=1';
      expect(input.record).toEqual({
        $type: 'app.bsky.feed.post',
        text,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        facets: [
          {
            index: { byteStart: at(first), byteEnd: at(first) + Buffer.byteLength(first) },
            features: [{ $type: 'app.bsky.richtext.facet#link', uri: first }],
          },
          {
            index: { byteStart: at(second), byteEnd: at(second) + Buffer.byteLength(second) },
            features: [{ $type: 'app.bsky.richtext.facet#link', uri: second }],
          },
        ],
      });
      // After 'Привет 👋🏽 ': 6 × 2 + 1 + 8 + 1 bytes.
      expect(at(first)).toBe(22);
      expect(create.token).toMatch(/^access\./);
      const uri = `at://${main.did}/app.bsky.feed.post/${input.rkey}`;
      const answer = await post(postId);
      expect(answer.targets[0]).toMatchObject({
        channel_ref: main.ref,
        status: 'published',
        message_ids: [],
        messages: [{ id: uri, url: `https://bsky.app/profile/${main.handle}/post/${input.rkey}` }],
        url: `https://bsky.app/profile/${main.handle}/post/${input.rkey}`,
      });
      const { rows } = await t.db.query(
        'SELECT delivery_key FROM post_targets WHERE post_id = $1',
        [postId],
      );
      expect(rows[0].delivery_key).toBe(input.rkey);
    });

    it('posts images as uploaded blobs embedded with their alt text and aspect ratio, in album order', async () => {
      const one = await upload('sample.png');
      const two = await upload('sample.jpg');
      const postId = await publish(main, { text: 'Two pictures', media_ids: [one, two] });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const uploads = bsky.callsOf('repo.uploadBlob').slice(-2);
      expect(uploads.map((u) => [u.contentType, u.bytes])).toEqual([
        ['image/png', fixture('sample.png')],
        ['image/jpeg', fixture('sample.jpg')],
      ]);
      const [create] = bsky.callsOf('repo.createRecord').slice(-1);
      const record = (create.json as { record: { embed: unknown } }).record;
      expect(record.embed).toEqual({
        $type: 'app.bsky.embed.images',
        images: [
          {
            alt: '',
            aspectRatio: { width: 64, height: 48 },
            image: {
              $type: 'blob',
              ref: { $link: expect.stringMatching(/^bafkrei/) },
              mimeType: 'image/png',
              size: fixture('sample.png').length,
            },
          },
          {
            alt: '',
            aspectRatio: { width: 64, height: 48 },
            image: {
              $type: 'blob',
              ref: { $link: expect.stringMatching(/^bafkrei/) },
              mimeType: 'image/jpeg',
              size: fixture('sample.jpg').length,
            },
          },
        ],
      });
    });

    it('a test key reaches no Bluesky service', async () => {
      const testKey = await make.apiKey(owner, { mode: 'test' });
      const before = bsky.calls.length;
      const res = await api('post', '/posts', testKey)
        .send({ text: 'Only a test', targets: [{ channel_ref: main.ref }], publish_now: true })
        .expect(201);
      expect((await waitForPostStatus(t, res.body.id as number)).status).toBe('published');
      const answer = (await api('get', `/posts/${res.body.id}`, testKey).expect(200)).body;
      expect(answer.targets[0].url).toMatch(/^https:\/\/example\.invalid\/bluesky\//);
      expect(bsky.calls.length).toBe(before);
    });
  });

  describe('limits', () => {
    const create = (body: Record<string, unknown>, target = main) =>
      api('post', '/posts').send({ targets: [{ channel_ref: target.ref }], ...body });

    it.each([
      ['300 families (skin tones and joiners)', '👍🏽'.repeat(300), 201],
      ['301 thumbs with skin tones', '👍🏽'.repeat(301), 400],
      ['300 flags', '🇫🇷'.repeat(300), 201],
      ['301 flags', '🇫🇷'.repeat(301), 400],
      ['300 letters with combining accents', 'é'.repeat(300), 201],
      ['301 letters with combining accents', 'é'.repeat(301), 400],
      ['300 Cyrillic letters', 'Ж'.repeat(300), 201],
      ['301 Cyrillic letters', 'Ж'.repeat(301), 400],
    ])('counts graphemes: %s', async (_name, text, status) => {
      const res = await create({ text });
      expect(res.status).toBe(status);
      if (status === 400) {
        expect(res.body.error.code).toBe('text_too_long');
        expect(res.body.error.message).toMatch(
          /^Bluesky takes at most 300 characters of text; this text has 301$/,
        );
      }
    });

    it('refuses past 3000 UTF-8 bytes before 300 graphemes', async () => {
      expect(Buffer.byteLength(FAMILY.repeat(120))).toBe(3000);
      await create({ text: FAMILY.repeat(120) }).expect(201);
      const res = await create({ text: `${FAMILY.repeat(120)}a` }).expect(400);
      expect(res.body.error).toMatchObject({
        code: 'text_too_long',
        message: 'Bluesky takes at most 3000 bytes of text (UTF-8); this text has 3001',
      });
      // CJK: three bytes a character, well within 300 characters of 3000 bytes.
      await create({ text: '漢'.repeat(300) }).expect(201);
    });

    it('takes an image of exactly 2,000,000 bytes and refuses one byte more', async () => {
      const exact = await upload('exact.png', pngOf(2_000_000));
      const over = await upload('over.png', pngOf(2_000_001));
      await create({ text: 'Exact', media_ids: [exact] }).expect(201);
      const res = await create({ text: 'Over', media_ids: [over] }).expect(400);
      expect(res.body.error).toMatchObject({
        code: 'media_too_large',
        message: `Bluesky takes image files of at most 2000000 bytes; media ${over} (over.png) has 2000001`,
      });
      // It reaches the service intact when published.
      const postId = await publish(main, { text: 'A big one', media_ids: [exact] });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      expect(bsky.callsOf('repo.uploadBlob').at(-1)?.bytes?.length).toBe(2_000_000);
    });

    it('refuses a video and a fifth image at create, PATCH and publish', async () => {
      const video = await upload('sample.mp4');
      const image = await upload('sample.png');
      const video400 = await create({ text: 'Clip', media_ids: [video] }).expect(400);
      expect(video400.body.error).toMatchObject({
        code: 'media_not_supported',
        message: `Bluesky does not take videos (media ${video})`,
      });
      const five = [
        image,
        await upload('sample.jpg'),
        await upload('sample.webp'),
        await upload('sample.gif'),
        await upload('sample.png'),
      ];
      expect((await create({ text: 'Five', media_ids: five }).expect(400)).body.error.code).toBe(
        'too_many_media',
      );
      await create({ text: 'Four', media_ids: five.slice(0, 4) }).expect(201);

      // A draft without targets takes anything; PATCH to a Bluesky target then applies the rules.
      const draft = await api('post', '/posts')
        .send({ text: 'Draft', media_ids: [video] })
        .expect(201);
      const patched = await api('patch', `/posts/${draft.body.id}`)
        .send({ targets: [{ channel_ref: main.ref }] })
        .expect(400);
      expect(patched.body.error.code).toBe('media_not_supported');
      const published = await api('post', `/posts/${draft.body.id}/publish`)
        .send({ targets: [{ channel_ref: main.ref }] })
        .expect(400);
      expect(published.body.error.code).toBe('media_not_supported');
      const { rows } = await t.db.query('SELECT status FROM posts WHERE id = $1', [draft.body.id]);
      expect(rows[0].status).toBe('draft');
    });

    it('refuses mixed platforms', async () => {
      const telegram = await new TelegramStandIn().start();
      const withTelegram = await startTestApp(
        { ...FAST, TELEGRAM_API_BASE_URL: telegram.url, BLUESKY_SERVICE_URL: bsky.url },
        { shareWith: t },
      );
      try {
        const both = new Factory(withTelegram, telegram);
        const bot = await both.telegramAccount(owner, project);
        const chat = await both.channel(owner, bot.id);
        const res = await api('post', '/posts')
          .send({ text: 'Both', targets: [{ channel_ref: main.ref }, { channel_ref: chat.id }] })
          .expect(400);
        expect(res.body.error.code).toBe('mixed_platforms');
      } finally {
        await withTelegram.close();
        await telegram.stop();
      }
    });

    it('the dry run names every problem at once, with the same codes as create', async () => {
      const video = await upload('sample.mp4');
      const res = await api('post', '/posts/validate')
        .send({ text: 'x'.repeat(301), media_ids: [video], targets: [{ channel_ref: main.ref }] })
        .expect(200);
      expect(res.body).toEqual({
        valid: false,
        errors: [
          {
            code: 'text_too_long',
            message: 'Bluesky takes at most 300 characters of text; this text has 301',
            field: 'text',
            channel_ref: main.ref,
          },
          {
            code: 'media_not_supported',
            message: `Bluesky does not take videos (media ${video})`,
            field: 'media_ids',
            channel_ref: main.ref,
          },
        ],
        targets: [
          {
            channel_ref: main.ref,
            platform: 'bluesky',
            messages: 1,
            messages_preview: ['x'.repeat(301)],
          },
        ],
      });
      const created = await create({ text: 'x'.repeat(301), media_ids: [video] }).expect(400);
      expect(created.body.error.details.map((d: { code: string }) => d.code)).toEqual([
        'text_too_long',
        'media_not_supported',
      ]);
    });
  });

  describe('sessions', () => {
    it('renews an expired session with refreshSession (no body, as its lexicon has no input), never a new session', async () => {
      const own = await connect();
      const created = bsky.sessionsCreated;
      const refreshes = bsky.callsOf('server.refreshSession').length;
      bsky.expireAccess(own.account);
      const postId = await publish(own, { text: 'After expiry' });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const renewals = bsky.callsOf('server.refreshSession').slice(refreshes);
      expect(renewals).toHaveLength(1);
      expect(renewals[0]).toMatchObject({ contentType: null, json: null });
      expect(renewals[0].bytes).toEqual(Buffer.alloc(0));
      expect(bsky.sessionsCreated).toBe(created);
      expect(bsky.recordsOf(own.did)).toHaveLength(1);
    });

    it('makes a new session from the app password when the refresh fails', async () => {
      const own = await connect();
      const created = bsky.sessionsCreated;
      bsky.expireAccess(own.account);
      bsky.script('com.atproto.server.refreshSession', {
        status: 400,
        error: 'ExpiredToken',
        message: 'Token has been revoked',
      });
      const postId = await publish(own, { text: 'After a failed refresh' });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      expect(bsky.sessionsCreated).toBe(created + 1);
      expect(bsky.recordsOf(own.did)).toHaveLength(1);
    });

    it('a revoked app password: account needs_reconnect, target account_needs_reconnect, event sent', async () => {
      const receiver = await new WebhookReceiver('127.0.0.2').start();
      try {
        const own = await connect();
        const hook = await api('post', '/webhooks')
          .send({ url: receiver.url('/revoked'), events: ['channel.needs_reconnect'] })
          .expect(201);
        receiver.expect('/revoked', hook.body.secret as string);
        bsky.revoke(own.account);
        const postId = await publish(own, { text: 'Revoked' });
        expect((await waitForPostStatus(t, postId)).status).toBe('failed');
        const [row] = await targetsOf(t, postId);
        expect(row).toMatchObject({ status: 'failed', error_code: 'account_needs_reconnect' });
        const { rows } = await t.db.query('SELECT needs_reconnect FROM accounts WHERE id = $1', [
          own.id,
        ]);
        expect(rows[0].needs_reconnect).toBe(true);
        await waitFor(() => receiver.of('/revoked').length === 1, 10_000);
        expect(receiver.of('/revoked')[0].payload).toMatchObject({
          type: 'channel.needs_reconnect',
          data: { project_id: project.id, account_id: own.id, channel_refs: [own.ref] },
        });
      } finally {
        await receiver.stop();
      }
    });

    it('two workers meeting an expired token at once refresh it once and both post', async () => {
      const second = await startTestApp(
        { ...FAST, BLUESKY_SERVICE_URL: bsky.url },
        { shareWith: t },
      );
      try {
        const accounts = [await connect(), await connect()];
        const refreshesBefore = bsky.callsOf('server.refreshSession').length;
        const created = bsky.sessionsCreated;
        for (const own of accounts) bsky.expireAccess(own.account);
        const ids = await Promise.all(
          accounts.flatMap((own) => [publish(own, { text: 'One' }), publish(own, { text: 'Two' })]),
        );
        for (const id of ids)
          expect((await waitForPostStatus(t, id, undefined, 20_000)).status).toBe('published');
        // One refresh per account: a second would have spent a refresh token already spent.
        expect(bsky.callsOf('server.refreshSession').length - refreshesBefore).toBe(2);
        expect(bsky.sessionsCreated).toBe(created);
        for (const own of accounts) expect(bsky.recordsOf(own.did)).toHaveLength(2);
      } finally {
        await second.close();
      }
    });
  });

  describe('exactly once', () => {
    it.each([
      ['drops the connection', { dropAfterWork: true }],
      ['never answers', { hangAfterWork: true }],
    ])(
      'a record made whose answer was lost (the service %s) ends published with one record',
      async (_how, script) => {
        const own = await connect();
        bsky.script('com.atproto.repo.createRecord', script);
        const postId = await publish(own, { text: 'Exactly once' });
        expect((await waitForPostStatus(t, postId)).status).toBe('published');
        expect(bsky.recordsOf(own.did)).toHaveLength(1);
        const creates = bsky.callsOf('repo.createRecord').filter((c) => c.json?.repo === own.did);
        expect(creates).toHaveLength(1);
        const reads = bsky.callsOf('repo.getRecord').filter((c) => c.params.repo === own.did);
        expect(reads).toHaveLength(1);
        expect(reads[0].params.rkey).toBe((creates[0].json as { rkey: string }).rkey);
        const answer = await post(postId);
        expect(answer.targets[0].messages).toEqual([
          { id: bsky.recordsOf(own.did)[0].uri, url: expect.stringContaining('/post/') },
        ]);
      },
    );

    it('a record key already taken (the PDS answers 500): read at once, published, no try spent', async () => {
      const own = await connect();
      const draft = await api('post', '/posts')
        .send({ text: 'Made before', targets: [{ channel_ref: own.ref }] })
        .expect(201);
      const { rows } = await t.db.query(
        'SELECT delivery_key FROM post_targets WHERE post_id = $1',
        [draft.body.id],
      );
      const uri = bsky.putRecord(own.did, rows[0].delivery_key as string);
      await api('post', `/posts/${draft.body.id}/publish`).send({}).expect(202);
      expect((await waitForPostStatus(t, draft.body.id as number)).status).toBe('published');
      const creates = bsky.callsOf('repo.createRecord').filter((c) => c.json?.repo === own.did);
      expect(creates).toHaveLength(1);
      const reads = bsky.callsOf('repo.getRecord').filter((c) => c.params.repo === own.did);
      expect(reads).toHaveLength(1);
      const target = await t.db.query('SELECT failures FROM post_targets WHERE post_id = $1', [
        draft.body.id,
      ]);
      expect(target.rows[0].failures).toBe(0);
      expect((await post(draft.body.id as number)).targets[0].messages).toEqual([
        { id: uri, url: expect.stringContaining('/post/') },
      ]);
    });

    it('waits out a 429 until ratelimit-reset, then posts once', async () => {
      const own = await connect();
      const reset = Math.ceil(Date.now() / 1000) + 1;
      bsky.script('com.atproto.repo.createRecord', {
        status: 429,
        error: 'RateLimitExceeded',
        message: 'Rate Limit Exceeded',
        headers: { 'ratelimit-reset': String(reset), 'ratelimit-remaining': '0' },
      });
      const postId = await publish(own, { text: 'Later' });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const creates = bsky.callsOf('repo.createRecord').filter((c) => c.json?.repo === own.did);
      expect(creates).toHaveLength(2);
      expect(creates[1].at).toBeGreaterThanOrEqual(reset * 1000 - 50);
      expect(bsky.recordsOf(own.did)).toHaveLength(1);
    });

    it('fails a record the service refuses for good with bluesky_rejected and its message', async () => {
      const own = await connect();
      bsky.script('com.atproto.repo.createRecord', {
        status: 400,
        error: 'InvalidRequest',
        message: 'Invalid app.bsky.feed.post record',
      });
      const postId = await publish(own, { text: 'Refused' });
      expect((await waitForPostStatus(t, postId)).status).toBe('failed');
      const [row] = await targetsOf(t, postId);
      expect(row).toMatchObject({
        error_code: 'bluesky_rejected',
        error_message: 'Bluesky 400 InvalidRequest: Invalid app.bsky.feed.post record',
      });
    });
  });
});

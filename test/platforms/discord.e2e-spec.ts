import { DiscordRecordedCall } from '../support/stand-ins/discord-stand-in';
import {
  DiscordTestChannel,
  DiscordWorld,
  startWithDiscord,
} from '../support/factories/discord-world';
import { SignedInUser, TestProject } from '../support/factories/factories';
import { fixture, pngOf } from '../support/factories/media-helpers';
import { projectApi } from '../support/factories/project-api';
import { targetsOf, waitForPostStatus } from '../support/publication';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { waitFor } from '../support/waits';

/** A token shaped as Discord's that no bot has. */
const UNKNOWN_TOKEN = `MTEwMDAwMDAwMDAwMDAwMDAwMQ.GaBcDe.${'x'.repeat(38)}`;

const METRICS_TOKEN = 'discord-spec-metrics-token';

/** Discord's upload limit for a bot: 10 MiB a file. */
const TEN_MIB = 10 * 1024 * 1024;

interface TargetAnswer {
  channel_ref: string;
  status: string;
  error: { code: string; message: string } | null;
  message_ids: number[];
  messages: { id: string; url: string | null }[];
  url: string | null;
}

/**
 * Discord end to end through Herald's HTTP API: accounts and channels checked against the
 * Discord stand-in, posts delivered as Discord's create-message calls (checked field by field),
 * Discord's limits at create, PATCH and publish, and its failures: a 429, a refused token, a
 * message made whose answer never came back.
 */
describe('Discord', () => {
  let world: DiscordWorld;
  let t: TestApp;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;
  let account: { id: number; token: string };
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    world = await startWithDiscord({
      PUBLICATION_RETRY_BASE_MS: '50',
      PUBLICATION_SEND_TIMEOUT_MS: '2000',
      PUBLICATION_SWEEP_INTERVAL_MS: '300',
      PUBLICATION_ENQUEUE_TIMEOUT_MS: '200',
      MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.1/32',
      WEBHOOK_RETRY_DELAYS_MS: '600000',
      RATE_LIMIT_CREATE_POST: '1000',
      RATE_LIMIT_PUBLISH: '1000',
      RATE_LIMIT_OTHER: '1000',
      RATE_LIMIT_UPLOAD: '1000',
      METRICS_TOKEN: METRICS_TOKEN,
    });
    t = world.t;
    ({ owner, project, key } = await world.make.owner('Discord'));
    account = await world.discordAccount(owner, project);
    receiver = await new WebhookReceiver().start();
  });

  afterAll(async () => {
    await receiver?.stop();
    await world?.close();
  });

  beforeEach(() => world.discord.reset());

  const { api, upload } = projectApi(() => ({ t, project, key }));
  const channel = () => world.discordChannel(owner, account.id);
  const publish = async (target: DiscordTestChannel, body: Record<string, unknown>) => {
    const res = await api('post', '/posts')
      .send({ ...body, targets: [{ channel_ref: target.id }], publish_now: true })
      .expect(201);
    return res.body.id as number;
  };
  const targetOf = async (postId: number, apiKey = key) =>
    ((await api('get', `/posts/${postId}`, apiKey).expect(200)).body.targets as TargetAnswer[])[0];
  const sends = (): DiscordRecordedCall[] => world.discord.callsOf('createMessage');
  /** The nonce of a send: at most 25 characters, as Discord takes them. */
  const NONCE = /^[0-9a-z-]{1,25}$/;

  describe('accounts and channels', () => {
    it('connects a bot checked with GET /users/@me; a refused token is discord_rejected', async () => {
      const token = world.discord.addBot('herald-news');
      const res = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, platform: 'discord', bot_token: token })
        .expect(201);
      expect(res.body).toMatchObject({
        id: expect.any(Number),
        platform: 'discord',
        title: 'herald-news',
        username: 'herald-news',
        needs_reconnect: false,
      });
      const [check] = world.discord.callsOf('getCurrentUser');
      expect(check.headers.authorization).toBe(`Bot ${token}`);
      expect(check.headers['user-agent']).toMatch(/^DiscordBot \(http.+, [\d.]+\)$/);
      const { rows } = await t.db.query<{ secret: string }>(
        'SELECT * FROM accounts WHERE id = $1',
        [res.body.id],
      );
      expect(JSON.stringify(rows[0])).not.toContain(token);

      const refused = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, platform: 'discord', bot_token: UNKNOWN_TOKEN })
        .expect(400);
      expect(refused.body.error).toMatchObject({
        code: 'discord_rejected',
        message: 'Discord rejected the request: 401: Unauthorized',
      });
    });

    it("answers Discord's 429 at connect and at adding a channel as 429 rate_limit_exceeded with Retry-After, storing nothing", async () => {
      const count = async (table: string) =>
        (await t.db.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;
      const before = { accounts: await count('accounts'), channels: await count('channels') };
      world.discord.script('getCurrentUser', { status: 429, retryAfter: 2.5 });
      const connect = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, platform: 'discord', bot_token: world.discord.addBot() })
        .expect(429);
      expect(connect.body.error).toEqual({
        code: 'rate_limit_exceeded',
        message: 'Discord is limiting requests for this account; try again in 3 s',
      });
      expect(connect.headers['retry-after']).toBe('3');

      const free = world.discord.addChannel({ name: 'later' });
      world.discord.script('getChannel', { status: 429, retryAfter: 0.2, global: true });
      const add = await t.http
        .post(`/api/accounts/${account.id}/channels`)
        .set('Authorization', owner.auth)
        .send({ channel_id: free.id })
        .expect(429);
      expect(add.body.error.code).toBe('rate_limit_exceeded');
      expect(add.headers['retry-after']).toBe('1');
      expect({ accounts: await count('accounts'), channels: await count('channels') }).toEqual(
        before,
      );
    });

    it('adds text and announcement channels with their links; refuses a voice or unknown channel', async () => {
      const text = await channel();
      expect(text).toMatchObject({
        platform: 'discord',
        account_id: account.id,
        channel_id: text.discord.id,
        title: text.discord.name,
        username: null,
        id: `discord:${account.id}:${text.discord.id}`,
      });
      const news = await world.discordChannel(owner, account.id, { type: 5, name: 'news' });
      expect(news.title).toBe('news');
      const [check] = world.discord.callsOf('getChannel');
      expect(check.path).toBe(`/channels/${text.discord.id}`);
      expect(check.headers.authorization).toBe(`Bot ${account.token}`);

      const voice = world.discord.addChannel({ type: 2, name: 'voice-chat' });
      const add = (channel_id: string) =>
        t.http
          .post(`/api/accounts/${account.id}/channels`)
          .set('Authorization', owner.auth)
          .send({ channel_id });
      const refused = await add(voice.id).expect(400);
      expect(refused.body.error.code).toBe('channel_not_supported');
      expect(refused.body.error.message).toContain('voice channel');
      const unknown = await add('1234567890123').expect(400);
      expect(unknown.body.error).toEqual({
        code: 'discord_rejected',
        message: 'Discord rejected the request: Unknown Channel',
      });

      const list = await api('get', '/channels').expect(200);
      const item = (list.body.items as Record<string, unknown>[]).find((c) => c.id === text.id);
      expect(item).toMatchObject({
        url: `https://discord.com/channels/${text.discord.guild_id}/${text.discord.id}`,
        limits: {
          text_max: 2000,
          text_unit: 'utf16',
          media_max: 10,
          media_kinds: ['image', 'video'],
          media_max_bytes: { image: TEN_MIB, video: TEN_MIB },
        },
      });
    });
  });

  describe('publishing', () => {
    it('text: one JSON message with content, the nonce kept and enforced, and its link', async () => {
      const target = await channel();
      const postId = await publish(target, { text: 'Hello, Discord' });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      expect(sends()).toHaveLength(1);
      const [send] = sends();
      expect(send.path).toBe(`/channels/${target.discord.id}/messages`);
      expect(send.headers.authorization).toBe(`Bot ${account.token}`);
      expect(send.headers['user-agent']).toMatch(/^DiscordBot \(/);
      expect(send.headers['content-type']).toBe('application/json');
      expect(send.json).toEqual({
        content: 'Hello, Discord',
        nonce: expect.stringMatching(NONCE),
        enforce_nonce: true,
      });
      const [message] = world.discord.messagesIn(target.discord.id);
      const url = `https://discord.com/channels/${target.discord.guild_id}/${target.discord.id}/${message.id}`;
      expect(await targetOf(postId)).toMatchObject({
        status: 'published',
        error: null,
        message_ids: [],
        messages: [{ id: message.id, url }],
        url,
      });
    });

    it("sends the image's alt text as the attachment's description", async () => {
      const target = await channel();
      const described = await api('post', '/media')
        .field('alt_text', 'A lighthouse at dusk')
        .attach('files', fixture('sample.png'), 'IMG_2034.png')
        .expect(201);
      const postId = await publish(target, {
        text: 'Described',
        media_ids: [described.body.items[0].id],
      });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const send = sends().at(-1)!;
      expect(send.json?.attachments).toEqual([
        { id: 0, filename: 'IMG_2034.png', description: 'A lighthouse at dusk' },
      ]);
    });

    it('one image: multipart with payload_json and files[0], the bytes as stored', async () => {
      const target = await channel();
      const media = await upload('sample.png');
      const postId = await publish(target, { text: 'A picture', media_ids: [media] });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const [send] = sends();
      expect(send.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(Object.keys(send.fields)).toEqual(['payload_json']);
      expect(send.json).toEqual({
        content: 'A picture',
        nonce: expect.stringMatching(NONCE),
        enforce_nonce: true,
        attachments: [{ id: 0, filename: 'sample.png' }],
      });
      expect(send.files).toHaveLength(1);
      expect(send.files[0]).toMatchObject({
        field: 'files[0]',
        filename: 'sample.png',
        mimeType: 'image/png',
      });
      expect(send.files[0].bytes.equals(fixture('sample.png'))).toBe(true);
      expect((await targetOf(postId)).messages).toHaveLength(1);
    });

    it('an album: every medium an attachment of one message, in order', async () => {
      const target = await channel();
      const names = ['sample.png', 'sample.jpg', 'sample.gif', 'sample.webp', 'sample.mp4'];
      const media: number[] = [];
      for (const name of names) media.push(await upload(name));
      const postId = await publish(target, { text: 'Five files', media_ids: media });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      expect(sends()).toHaveLength(1);
      const [send] = sends();
      expect(send.json).toEqual({
        content: 'Five files',
        nonce: expect.stringMatching(NONCE),
        enforce_nonce: true,
        attachments: names.map((filename, id) => ({ id, filename })),
      });
      expect(send.files.map((f) => [f.field, f.filename, f.mimeType])).toEqual([
        ['files[0]', 'sample.png', 'image/png'],
        ['files[1]', 'sample.jpg', 'image/jpeg'],
        ['files[2]', 'sample.gif', 'image/gif'],
        ['files[3]', 'sample.webp', 'image/webp'],
        ['files[4]', 'sample.mp4', 'video/mp4'],
      ]);
      names.forEach((name, i) => expect(send.files[i].bytes.equals(fixture(name))).toBe(true));
      const made = world.discord.messagesIn(target.discord.id);
      expect(made).toHaveLength(1);
      expect(made[0].attachments.map((a) => a.filename)).toEqual(names);
      expect((await targetOf(postId)).messages).toEqual([
        { id: made[0].id, url: expect.stringContaining(made[0].id) },
      ]);
    });

    it('a video without text: no content, the file alone', async () => {
      const target = await channel();
      const media = await upload('sample.mp4');
      const postId = await publish(target, { media_ids: [media] });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const [send] = sends();
      expect(send.json).toEqual({
        nonce: expect.stringMatching(NONCE),
        enforce_nonce: true,
        attachments: [{ id: 0, filename: 'sample.mp4' }],
      });
      expect(send.files[0]).toMatchObject({ field: 'files[0]', mimeType: 'video/mp4' });
      expect(send.files[0].bytes.equals(fixture('sample.mp4'))).toBe(true);
    });

    it('times each Discord call by method and outcome', async () => {
      const scrape = async () =>
        (await t.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200))
          .text;
      const count = (text: string, method: string, outcome: string) =>
        Number(
          new RegExp(
            `^herald_discord_request_duration_seconds_count\\{method="${method}",outcome="${outcome}"\\} (\\d+)$`,
            'm',
          ).exec(text)?.[1] ?? 0,
        );
      const before = await scrape();
      const target = await channel();
      expect((await waitForPostStatus(t, await publish(target, { text: 'Timed' }))).status).toBe(
        'published',
      );
      const after = await scrape();
      expect(count(after, 'getChannel', 'ok')).toBe(count(before, 'getChannel', 'ok') + 1);
      expect(count(after, 'createMessage', 'ok')).toBe(count(before, 'createMessage', 'ok') + 1);
      expect(after).not.toContain(account.token);
    });

    it("paces a channel's posts to Discord's 5 per 5 seconds: none refused, the sixth a window later", async () => {
      const target = await channel();
      const posts: number[] = [];
      for (let i = 0; i < 7; i++) posts.push(await publish(target, { text: `Burst ${i}` }));
      for (const post of posts)
        expect((await waitForPostStatus(t, post, ['published', 'failed'], 30_000)).status).toBe(
          'published',
        );
      expect(world.discord.rateLimitedCalls).toBe(0);
      const arrivals = sends().map((send) => send.at);
      expect(arrivals).toHaveLength(7);
      expect(arrivals[5] - arrivals[0]).toBeGreaterThanOrEqual(5_000);
    });

    it('a test key publishes without reaching Discord', async () => {
      const target = await channel();
      const testKey = await world.make.apiKey(owner, { mode: 'test' });
      const res = await api('post', '/posts', testKey)
        .send({ text: 'Rehearsal', targets: [{ channel_ref: target.id }], publish_now: true })
        .expect(201);
      expect((await waitForPostStatus(t, res.body.id as number)).status).toBe('published');
      const answer = await targetOf(res.body.id as number, testKey);
      expect(answer.messages).toHaveLength(1);
      expect(answer.url).toMatch(/^https:\/\/example\.invalid\//);
      expect(sends()).toEqual([]);
    });
  });

  describe("Discord's limits", () => {
    /** Creates a draft to the channel (or without targets), then answers its id. */
    const draft = async (body: Record<string, unknown>) =>
      (await api('post', '/posts').send(body).expect(201)).body.id as number;
    const code = (res: { body: { error?: { code: string } } }) => res.body.error?.code;

    it('text: 2000 UTF-16 code units pass, 2001 is text_too_long at create, PATCH and publish', async () => {
      const target = await channel();
      const targets = [{ channel_ref: target.id }];
      // 1000 emoji: 1000 characters to a reader, 2000 code units to Discord.
      const max = '😀'.repeat(1000);
      const over = max + 'x';

      await draft({ text: max, targets });
      const refused = await api('post', '/posts').send({ text: over, targets }).expect(400);
      expect(refused.body.error).toMatchObject({
        code: 'text_too_long',
        message: expect.stringMatching(/Discord.*2000/),
      });

      const changed = await draft({ text: 'short', targets });
      await api('patch', `/posts/${changed}`).send({ text: max }).expect(200);
      expect(code(await api('patch', `/posts/${changed}`).send({ text: over }).expect(400))).toBe(
        'text_too_long',
      );

      const tooLong = await draft({ text: over });
      const publishing = await api('post', `/posts/${tooLong}/publish`).send({ targets });
      expect([publishing.status, code(publishing)]).toEqual([400, 'text_too_long']);
      expect(sends()).toEqual([]);
      const fits = await draft({ text: max });
      await api('post', `/posts/${fits}/publish`).send({ targets }).expect(202);
      expect((await waitForPostStatus(t, fits)).status).toBe('published');
      expect(sends().map((send) => send.json?.content)).toEqual([max]);
    });

    it('media: 10 pass at create, PATCH and publish; 11 are refused', async () => {
      const target = await channel();
      const targets = [{ channel_ref: target.id }];
      const media: number[] = [];
      for (let i = 0; i < 11; i++) media.push(await upload('sample.png'));
      const ten = media.slice(0, 10);

      await draft({ text: 'ten', media_ids: ten, targets });
      // Eleven is more than any post takes (its body is refused before Discord's limits are read).
      const eleven = await api('post', '/posts')
        .send({ text: 'eleven', media_ids: media, targets })
        .expect(400);
      expect(code(eleven)).toBe('validation_failed');
      const changed = await draft({ text: 'one', media_ids: [media[0]], targets });
      await api('patch', `/posts/${changed}`).send({ media_ids: ten }).expect(200);
      expect(
        code(await api('patch', `/posts/${changed}`).send({ media_ids: media }).expect(400)),
      ).toBe('validation_failed');

      const fits = await draft({ text: 'ten', media_ids: ten });
      await api('post', `/posts/${fits}/publish`).send({ targets }).expect(202);
      expect((await waitForPostStatus(t, fits)).status).toBe('published');
      expect(sends()).toHaveLength(1);
      expect(sends()[0].files.map((file) => file.field)).toEqual(
        ten.map((_, index) => `files[${index}]`),
      );
    });

    it('a file of 10,485,760 bytes passes, one byte more is media_too_large at create, PATCH and publish', async () => {
      const target = await channel();
      const targets = [{ channel_ref: target.id }];
      const fits = await upload('fits.png', pngOf(TEN_MIB));
      const tooBig = await upload('too-big.png', pngOf(TEN_MIB + 1));

      const refused = await api('post', '/posts')
        .send({ text: 'big', media_ids: [tooBig], targets })
        .expect(400);
      expect(refused.body.error).toMatchObject({
        code: 'media_too_large',
        message: expect.stringMatching(/Discord/),
      });
      const changed = await draft({ text: 'small', targets });
      await api('patch', `/posts/${changed}`)
        .send({ media_ids: [fits] })
        .expect(200);
      expect(
        code(
          await api('patch', `/posts/${changed}`)
            .send({ media_ids: [tooBig] })
            .expect(400),
        ),
      ).toBe('media_too_large');

      const untargeted = await draft({ text: 'big', media_ids: [tooBig] });
      const publishing = await api('post', `/posts/${untargeted}/publish`).send({ targets });
      expect([publishing.status, code(publishing)]).toEqual([400, 'media_too_large']);
      expect(sends()).toEqual([]);

      // The largest file Discord takes is delivered whole.
      await api('post', `/posts/${changed}/publish`).send({ targets }).expect(202);
      expect((await waitForPostStatus(t, changed)).status).toBe('published');
      const [send] = sends();
      expect(send.files[0].bytes.length).toBe(TEN_MIB);
      expect(send.files[0].bytes.equals(pngOf(TEN_MIB))).toBe(true);
    });

    it('a post to Discord and Telegram channels at once is mixed_platforms', async () => {
      const target = await channel();
      const tg = await world.make.telegramAccount(owner, project);
      const chat = await world.make.channel(owner, tg.id);
      const res = await api('post', '/posts')
        .send({ text: 'Both', targets: [{ channel_ref: target.id }, { channel_ref: chat.id }] })
        .expect(400);
      expect(res.body.error.code).toBe('mixed_platforms');
    });
  });

  describe('failures', () => {
    it("a 429 waits Discord's retry_after once, then the message is delivered", async () => {
      const target = await channel();
      world.discord.script('createMessage', { status: 429, retryAfter: 0.4 });
      const postId = await publish(target, { text: 'Patience' });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const calls = sends();
      expect(calls).toHaveLength(2);
      expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(400);
      expect(calls[1].json?.nonce).toBe(calls[0].json?.nonce);
      expect(world.discord.messagesIn(target.discord.id)).toHaveLength(1);
    });

    it('a refused token at send: account needs_reconnect, target account_needs_reconnect, event sent', async () => {
      const own = await world.make.owner('Discord reconnect');
      const bot = await world.discordAccount(own.owner, own.project);
      const target = await world.discordChannel(own.owner, bot.id);
      const hook = await t.http
        .post(`/api/public/v1/projects/${own.project.id}/webhooks`)
        .set('Authorization', `Bearer ${own.key}`)
        .send({ url: receiver.url('/discord-reconnect'), events: ['channel.needs_reconnect'] })
        .expect(201);
      receiver.expect('/discord-reconnect', hook.body.secret as string);
      world.discord.script('createMessage', { status: 401, message: '401: Unauthorized' });
      const res = await t.http
        .post(`/api/public/v1/projects/${own.project.id}/posts`)
        .set('Authorization', `Bearer ${own.key}`)
        .send({ text: 'Revoked', targets: [{ channel_ref: target.id }], publish_now: true })
        .expect(201);
      expect((await waitForPostStatus(t, res.body.id as number)).status).toBe('failed');
      expect(sends()).toHaveLength(1);
      const { rows } = await t.db.query('SELECT needs_reconnect FROM accounts WHERE id = $1', [
        bot.id,
      ]);
      expect(rows[0].needs_reconnect).toBe(true);
      const [row] = await targetsOf(t, res.body.id as number);
      expect(row).toMatchObject({ status: 'failed', error_code: 'account_needs_reconnect' });
      expect(row.error_message).toContain('401');
      await waitFor(() => receiver.of('/discord-reconnect').length === 1, 10_000);
      expect(receiver.of('/discord-reconnect')[0].payload).toMatchObject({
        type: 'channel.needs_reconnect',
        data: { project_id: own.project.id, account_id: bot.id, channel_refs: [target.id] },
      });
      expect(receiver.rejected).toEqual([]);

      // The token given again (checked with Discord) clears the flag, and the post goes out.
      const reconnected = await t.http
        .put(`/api/accounts/${bot.id}`)
        .set('Authorization', own.owner.auth)
        .send({ bot_token: bot.token })
        .expect(200);
      expect(reconnected.body).toMatchObject({ platform: 'discord', needs_reconnect: false });
      await t.http
        .post(`/api/public/v1/projects/${own.project.id}/posts/${res.body.id}/publish`)
        .set('Authorization', `Bearer ${own.key}`)
        .send({ targets: [{ channel_ref: target.id }] })
        .expect(202);
      expect((await waitForPostStatus(t, res.body.id as number)).status).toBe('published');
      expect(world.discord.messagesIn(target.discord.id)).toHaveLength(1);
    });

    it("a message Discord refuses for good fails its target discord_rejected with Discord's message", async () => {
      const target = await world.discordChannel(owner, account.id, { missingPermissions: true });
      const postId = await publish(target, { text: 'Not allowed here' });
      expect((await waitForPostStatus(t, postId)).status).toBe('failed');
      expect(sends()).toHaveLength(1);
      expect((await targetOf(postId)).error).toEqual({
        code: 'discord_rejected',
        message: 'Discord 403: Missing Permissions',
      });
      const { rows } = await t.db.query('SELECT needs_reconnect FROM accounts WHERE id = $1', [
        account.id,
      ]);
      expect(rows[0].needs_reconnect).toBe(false);
    });

    it.each([
      ['hangs', 'hang'],
      ['drops the connection', 'drop'],
    ] as const)(
      'Discord makes the message and %s: tried again with its nonce, published with exactly one message',
      async (_what, afterCreate) => {
        const target = await channel();
        world.discord.script('createMessage', { afterCreate });
        const postId = await publish(target, { text: 'Exactly once' });
        expect((await waitForPostStatus(t, postId)).status).toBe('published');
        const made = world.discord.messagesIn(target.discord.id);
        expect(made).toHaveLength(1);
        const calls = sends();
        expect(calls.length).toBeGreaterThanOrEqual(2);
        expect(new Set(calls.map((c) => c.json?.nonce))).toEqual(new Set([made[0].nonce]));
        expect(calls.every((c) => c.json?.enforce_nonce === true)).toBe(true);
        expect(await targetOf(postId)).toMatchObject({
          status: 'published',
          messages: [{ id: made[0].id, url: expect.stringContaining(made[0].id) }],
        });
      },
    );
  });
});

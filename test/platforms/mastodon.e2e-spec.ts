import { SignedInUser, TestProject } from '../support/factories/factories';
import { fixture, pngOf } from '../support/factories/media-helpers';
import { projectApi } from '../support/factories/project-api';
import {
  MastodonStandIn,
  RecordedMastodonCall,
  STOCK_LIMITS,
} from '../support/stand-ins/mastodon-stand-in';
import {
  MastodonTestAccount,
  MastodonWorld,
  startWithMastodon,
} from '../support/factories/mastodon-world';
import { targetsOf, waitForPostStatus } from '../support/publication';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { waitFor } from '../support/waits';

interface TargetAnswer {
  channel_ref: string;
  status: string;
  error: { code: string; message: string } | null;
  message_ids: number[];
  messages: { id: string; url: string | null }[];
  url: string | null;
}

/** An Idempotency-Key as Herald makes them: the target's key for that message. */
const KEY = /^[0-9a-z-]{1,25}$/;

/** A link of 100 characters, which Mastodon counts as 23. */
const LINK = `https://example.com/${'a'.repeat(80)}`;

const METRICS_TOKEN = 'mastodon-spec-metrics-token';

/** An account's retry is paced a status slot after its first try (300 statuses in 3 hours). */
const PACED_RETRY_MS = 60_000;

/**
 * Mastodon end to end through Herald's HTTP API: accounts checked against a stand-in instance on
 * loopback (an address the outbound rules must allow), statuses delivered as the instance's calls
 * (checked field by field), the instance's limits at create, PATCH and publish, and its failures: a
 * 429 with X-RateLimit-Reset, a revoked token, a refused status, a status made whose answer never
 * came back. Each publishing spec has an account of its own: one account's statuses are paced a
 * slot apart.
 */
describe('Mastodon', () => {
  let world: MastodonWorld;
  let t: TestApp;
  let mastodon: MastodonStandIn;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;
  let receiver: WebhookReceiver;
  const instances: MastodonStandIn[] = [];

  beforeAll(async () => {
    world = await startWithMastodon({
      PUBLICATION_RETRY_BASE_MS: '50',
      PUBLICATION_SEND_TIMEOUT_MS: '3000',
      PUBLICATION_SWEEP_INTERVAL_MS: '300',
      PUBLICATION_ENQUEUE_TIMEOUT_MS: '200',
      WEBHOOK_RETRY_DELAYS_MS: '600000',
      RATE_LIMIT_CREATE_POST: '1000',
      RATE_LIMIT_PUBLISH: '1000',
      RATE_LIMIT_OTHER: '1000',
      RATE_LIMIT_UPLOAD: '1000',
      METRICS_TOKEN,
    });
    ({ t, mastodon } = world);
    ({ owner, project, key } = await world.make.owner('Mastodon'));
    receiver = await new WebhookReceiver().start();
  });

  afterAll(async () => {
    await receiver?.stop();
    for (const instance of instances) await instance.stop();
    await world?.close();
  });

  /** Another instance, with limits of its own. */
  const instanceWith = async (limits: Parameters<MastodonStandIn['configure']>[0]) => {
    const instance = (await new MastodonStandIn().start()).configure(limits);
    instances.push(instance);
    return instance;
  };
  const { api, upload } = projectApi(() => ({ t, project, key }));
  const connect = (instance?: MastodonStandIn) =>
    world.mastodonAccount(owner, project, key, instance);
  const connectBody = (fields: Record<string, unknown>) =>
    t.http
      .post('/api/accounts')
      .set('Authorization', owner.auth)
      .send({ project_id: project.id, platform: 'mastodon', ...fields });
  const publish = async (to: MastodonTestAccount, body: Record<string, unknown>) => {
    const res = await api('post', '/posts')
      .send({ ...body, targets: [{ channel_ref: to.channel.id }], publish_now: true })
      .expect(201);
    return res.body.id as number;
  };
  const targetOf = async (postId: number, apiKey = key) =>
    ((await api('get', `/posts/${postId}`, apiKey).expect(200)).body.targets as TargetAnswer[])[0];
  const statusCalls = (to: MastodonTestAccount, instance = mastodon): RecordedMastodonCall[] =>
    instance.callsOf('post_status', to.token);

  describe('accounts', () => {
    it('connects with verify_credentials (Bearer) and the instance; its own timeline is its channel', async () => {
      const { token, account } = mastodon.addAccount('herald_news', 'Herald News');
      const res = await connectBody({ instance_url: `${mastodon.url}/`, access_token: token });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        id: expect.any(Number),
        platform: 'mastodon',
        title: 'Herald News',
        username: 'herald_news',
        needs_reconnect: false,
      });
      const [check] = mastodon.callsOf('verify_credentials', token);
      expect(check.headers.authorization).toBe(`Bearer ${token}`);
      expect(mastodon.callsOf('instance', token)).toHaveLength(1);
      const { rows } = await t.db.query('SELECT * FROM accounts WHERE id = $1', [res.body.id]);
      expect(JSON.stringify(rows[0])).not.toContain(token);

      const list = await api('get', '/channels').expect(200);
      const channel = (list.body.items as Record<string, unknown>[]).find(
        (c) => c.id === `mastodon:${res.body.id}:${account.id}`,
      );
      expect(channel).toMatchObject({
        platform: 'mastodon',
        account_id: res.body.id,
        channel_id: account.id,
        title: 'Herald News',
        username: 'herald_news',
        url: account.url,
        limits: {
          text_max: 500,
          text_unit: 'graphemes',
          media_max: 4,
          media_kinds: ['image', 'video'],
          media_max_bytes: {
            image: STOCK_LIMITS.image_size_limit,
            video: STOCK_LIMITS.video_size_limit,
          },
        },
      });
    });

    it('a display name left empty makes the username the title', async () => {
      const { token } = mastodon.addAccount('quiet', '');
      const res = await connectBody({ instance_url: mastodon.url, access_token: token });
      expect(res.body).toMatchObject({ title: 'quiet', username: 'quiet' });
    });

    it("a token the instance refuses is mastodon_rejected with the instance's message", async () => {
      const res = await connectBody({ instance_url: mastodon.url, access_token: 'revoked-token' });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'mastodon_rejected',
        message: 'Mastodon rejected the request: The access token is invalid',
      });
    });

    it("answers the instance's 429 at connect as 429 rate_limit_exceeded, Retry-After from X-RateLimit-Reset, storing nothing", async () => {
      const { token } = mastodon.addAccount('limited', 'Limited');
      const reset = new Date(Math.ceil(Date.now() / 1000) * 1000 + 30_000);
      mastodon.script('verify_credentials', {
        status: 429,
        error: 'Too many requests',
        headers: {
          'X-RateLimit-Limit': '300',
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset': reset.toISOString(),
        },
      });
      const { rows: before } = await t.db.query('SELECT count(*)::int AS n FROM accounts');
      const res = await connectBody({ instance_url: mastodon.url, access_token: token });
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('rate_limit_exceeded');
      expect(res.body.error.message).toMatch(
        /^Mastodon is limiting requests for this account; try again in 3[01] s$/,
      );
      expect(['30', '31']).toContain(res.headers['retry-after']);
      const { rows: after } = await t.db.query('SELECT count(*)::int AS n FROM accounts');
      expect(after[0].n).toBe(before[0].n);
      // The limit passed, the same token connects.
      const again = await connectBody({ instance_url: mastodon.url, access_token: token });
      expect(again.status).toBe(201);
    });

    it('an instance that does not answer is mastodon_unavailable', async () => {
      const down = await new MastodonStandIn().start();
      const { token } = down.addAccount();
      const url = down.url;
      await down.stop();
      const res = await connectBody({ instance_url: url, access_token: token });
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('mastodon_unavailable');
    });

    it('an instance_url outside the outbound rules is refused before any call', async () => {
      const { token } = mastodon.addAccount();
      const before = mastodon.calls.length;
      // Loopback, but not the address the allow-list opens.
      const other = await connectBody({
        instance_url: mastodon.url.replace('127.0.0.1', '127.0.0.2'),
        access_token: token,
      });
      expect(other.status).toBe(400);
      expect(other.body.error.code).toBe('url_not_allowed');
      for (const instance_url of ['ftp://mastodon.example', `http://user:pw@127.0.0.1:1`]) {
        const refused = await connectBody({ instance_url, access_token: token });
        expect([instance_url, refused.status, refused.body.error.code]).toEqual([
          instance_url,
          400,
          'invalid_url',
        ]);
      }
      const missing = await connectBody({ instance_url: mastodon.url });
      expect(missing.status).toBe(400);
      expect(missing.body.error.code).toBe('validation_failed');
      expect(mastodon.calls.length).toBe(before);
    });

    it("an instance's own limits are kept with the account, read again when its token changes", async () => {
      const instance = await instanceWith({ max_characters: 1000, image_size_limit: 8_000_000 });
      const to = await connect(instance);
      expect(to.channel.limits).toMatchObject({
        text_max: 1000,
        media_max_bytes: { image: 8_000_000, video: STOCK_LIMITS.video_size_limit },
      });
      instance.configure({ max_characters: 5000 });
      await t.http
        .put(`/api/accounts/${to.id}`)
        .set('Authorization', owner.auth)
        .send({ instance_url: instance.url, access_token: instance.newToken(to.token) })
        .expect(200);
      const list = await api('get', '/channels').expect(200);
      const limits = (list.body.items as { account_id: number; limits: { text_max: number } }[])
        .filter((c) => c.account_id === to.id)
        .map((c) => c.limits.text_max);
      expect(new Set(limits)).toEqual(new Set([5000]));
    });

    it("an instance without the v2 instance route has Mastodon's default limits", async () => {
      const old = (await instanceWith({})).withoutInstanceRoute();
      const to = await connect(old);
      expect(to.channel.limits).toMatchObject({ text_max: 500, media_max: 4 });
    });

    it('no channel can be added: the account came with its own', async () => {
      const to = await connect();
      const res = await t.http
        .post(`/api/accounts/${to.id}/channels`)
        .set('Authorization', owner.auth)
        .send({});
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('channels_not_addable');
    });
  });

  describe('publishing', () => {
    it('text: one public status with the Idempotency-Key, and its link', async () => {
      const to = await connect();
      const postId = await publish(to, { text: 'Hello, fediverse' });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const calls = statusCalls(to);
      expect(calls).toHaveLength(1);
      const [call] = calls;
      expect(call.headers.authorization).toBe(`Bearer ${to.token}`);
      expect(call.headers['content-type']).toBe('application/json');
      expect(call.headers['idempotency-key']).toMatch(KEY);
      expect(call.body).toEqual({
        status: 'Hello, fediverse',
        media_ids: [],
        visibility: 'public',
      });
      const [status] = mastodon.statusesOf(to.mastodonId);
      expect(status.url).toBe(`${to.profileUrl}/${status.id}`);
      expect(await targetOf(postId)).toMatchObject({
        status: 'published',
        error: null,
        message_ids: [],
        messages: [{ id: status.id, url: status.url }],
        url: status.url,
      });
      expect(to.channel.url).toBe(to.profileUrl);
    });

    it('one image: uploaded as multipart `file`, the bytes as stored, then attached', async () => {
      const to = await connect();
      const media = await upload('sample.png');
      const postId = await publish(to, { text: 'A picture', media_ids: [media] });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const [uploadCall] = mastodon.callsOf('upload_media', to.token);
      expect(uploadCall.path).toBe('/api/v2/media');
      expect(uploadCall.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(uploadCall.files).toHaveLength(1);
      expect(uploadCall.files[0]).toMatchObject({
        field: 'file',
        filename: 'sample.png',
        mimeType: 'image/png',
      });
      expect(uploadCall.files[0].bytes.equals(fixture('sample.png'))).toBe(true);
      const [status] = mastodon.statusesOf(to.mastodonId);
      expect(statusCalls(to)[0].body).toEqual({
        status: 'A picture',
        media_ids: status.mediaIds,
        visibility: 'public',
      });
      expect(status.mediaIds).toHaveLength(1);
    });

    it("sends the image's alt text (given at upload or changed since) as the medium's description", async () => {
      const to = await connect();
      const described = await api('post', '/media')
        .field('alt_text', 'A lighthouse at dusk')
        .attach('files', fixture('sample.png'), 'IMG_2034.png')
        .expect(201);
      const plain = await upload('sample.jpg');
      const changed = await upload('sample.webp');
      await api('patch', `/media/${changed}`).send({ alt_text: 'Figs on a plate' }).expect(200);
      const postId = await publish(to, {
        text: 'Described',
        media_ids: [described.body.items[0].id, plain, changed],
      });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const uploads = mastodon.callsOf('upload_media', to.token);
      expect(uploads.map((u) => u.body.description ?? null)).toEqual([
        'A lighthouse at dusk',
        null,
        'Figs on a plate',
      ]);
    });

    it('an album: four images uploaded in order and attached in that order', async () => {
      const to = await connect();
      const names = ['sample.png', 'sample.jpg', 'sample.gif', 'sample.webp'];
      const media: number[] = [];
      for (const name of names) media.push(await upload(name));
      const postId = await publish(to, { text: 'Four files', media_ids: media });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const uploads = mastodon.callsOf('upload_media', to.token);
      expect(uploads.map((u) => [u.files[0].filename, u.files[0].mimeType])).toEqual([
        ['sample.png', 'image/png'],
        ['sample.jpg', 'image/jpeg'],
        ['sample.gif', 'image/gif'],
        ['sample.webp', 'image/webp'],
      ]);
      names.forEach((name, i) =>
        expect(uploads[i].files[0].bytes.equals(fixture(name))).toBe(true),
      );
      const made = mastodon.statusesOf(to.mastodonId);
      expect(made).toHaveLength(1);
      expect(made[0].mediaIds).toHaveLength(4);
      expect(statusCalls(to)[0].body).toMatchObject({ media_ids: made[0].mediaIds });
    });

    it('a video without text: 202, polled while processed (206) until ready, then the status', async () => {
      const to = await connect();
      mastodon.processMedia({ polls: 2, async: true });
      const media = await upload('sample.mp4');
      const postId = await publish(to, { media_ids: [media] });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const [uploadCall] = mastodon.callsOf('upload_media', to.token);
      expect(uploadCall.status).toBe(202);
      expect(uploadCall.files[0]).toMatchObject({ field: 'file', mimeType: 'video/mp4' });
      expect(uploadCall.files[0].bytes.equals(fixture('sample.mp4'))).toBe(true);
      const [status] = mastodon.statusesOf(to.mastodonId);
      const polls = mastodon.callsOf('get_media', to.token);
      expect(polls.map((p) => [p.path, p.status])).toEqual([
        [`/api/v1/media/${status.mediaIds[0]}`, 206],
        [`/api/v1/media/${status.mediaIds[0]}`, 206],
        [`/api/v1/media/${status.mediaIds[0]}`, 200],
      ]);
      expect(statusCalls(to)[0].body).toEqual({
        status: '',
        media_ids: status.mediaIds,
        visibility: 'public',
      });
      expect(statusCalls(to)[0].at).toBeGreaterThan(polls[2].at);
    });

    it('times each call to the instance by method and outcome, the token nowhere', async () => {
      const scrape = async () =>
        (await t.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200))
          .text;
      const count = (text: string, method: string, outcome: string) =>
        Number(
          new RegExp(
            `^herald_mastodon_request_duration_seconds_count\\{method="${method}",outcome="${outcome}"\\} (\\d+)$`,
            'm',
          ).exec(text)?.[1] ?? 0,
        );
      const before = await scrape();
      const to = await connect();
      mastodon.processMedia({ polls: 1, async: true });
      const media = await upload('sample.png');
      const postId = await publish(to, { text: 'Timed', media_ids: [media] });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const after = await scrape();
      for (const [method, calls] of [
        ['verify_credentials', 1],
        ['instance', 1],
        ['upload_media', 1],
        ['get_media', 2],
        ['post_status', 1],
      ] as const)
        expect([method, count(after, method, 'ok')]).toEqual([
          method,
          count(before, method, 'ok') + calls,
        ]);
      expect(after).not.toContain(to.token);
    });

    it('a test key publishes without reaching the instance', async () => {
      const to = await connect();
      const testKey = await world.make.apiKey(owner, { mode: 'test' });
      const before = mastodon.calls.length;
      const res = await api('post', '/posts', testKey)
        .send({ text: 'Rehearsal', targets: [{ channel_ref: to.channel.id }], publish_now: true })
        .expect(201);
      expect((await waitForPostStatus(t, res.body.id as number)).status).toBe('published');
      const answer = await targetOf(res.body.id as number, testKey);
      expect(answer.messages).toHaveLength(1);
      expect(answer.url).toMatch(/^https:\/\/example\.invalid\//);
      expect(mastodon.calls.length).toBe(before);
    });
  });

  describe("the instance's limits", () => {
    /** Refused with `code` at create, PATCH (of a draft within the limits) and publish. */
    async function refusedEverywhere(
      to: MastodonTestAccount,
      fits: Record<string, unknown>,
      over: Record<string, unknown>,
      code: string,
    ): Promise<string> {
      const targets = [{ channel_ref: to.channel.id }];
      const created = await api('post', '/posts')
        .send({ ...over, targets })
        .expect(400);
      expect(created.body.error.code).toBe(code);
      const draft = await api('post', '/posts')
        .send({ ...fits, targets })
        .expect(201);
      const patched = await api('patch', `/posts/${draft.body.id}`).send(over).expect(400);
      expect(patched.body.error.code).toBe(code);
      const untargeted = await api('post', '/posts').send(over).expect(201);
      const published = await api('post', `/posts/${untargeted.body.id}/publish`)
        .send({ targets })
        .expect(400);
      expect(published.body.error.code).toBe(code);
      return created.body.error.message as string;
    }

    it('text: 500 graphemes pass, 501 is text_too_long; a link counts 23', async () => {
      const to = await connect();
      const max = `${'é'.repeat(476)} ${LINK}`; // 577 characters, 500 as Mastodon counts
      const message = await refusedEverywhere(
        to,
        { text: max },
        { text: `${max}!` },
        'text_too_long',
      );
      expect(message).toMatch(/Mastodon.*500/);
      await api('post', '/posts')
        .send({ text: '🇫🇷'.repeat(500), targets: [{ channel_ref: to.channel.id }] })
        .expect(201);
      const postId = await publish(to, { text: max });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      expect(mastodon.statusesOf(to.mastodonId)[0].text).toBe(max);
    });

    it('an instance whose limit is 1000: 1000 pass, 1001 are refused', async () => {
      const to = await connect(await instanceWith({ max_characters: 1000 }));
      const message = await refusedEverywhere(
        to,
        { text: 'x'.repeat(1000) },
        { text: 'x'.repeat(1001) },
        'text_too_long',
      );
      expect(message).toMatch(/1000/);
    });

    it('media: 4 pass, 5 are too_many_media', async () => {
      const to = await connect();
      const five: number[] = [];
      for (let i = 0; i < 5; i++) five.push(await upload('sample.png'));
      await refusedEverywhere(
        to,
        { text: 'four', media_ids: five.slice(0, 4) },
        { text: 'five', media_ids: five },
        'too_many_media',
      );
    });

    it('an image beside a video, or two videos, is media_not_supported', async () => {
      const to = await connect();
      const image = await upload('sample.png');
      const video = await upload('sample.mp4');
      const other = await upload('sample.mov');
      const message = await refusedEverywhere(
        to,
        { text: 'one video', media_ids: [video] },
        { text: 'both', media_ids: [image, video] },
        'media_not_supported',
      );
      expect(message).toContain('images or a single video');
      const two = await api('post', '/posts')
        .send({ text: 'two', media_ids: [video, other], targets: [{ channel_ref: to.channel.id }] })
        .expect(400);
      expect(two.body.error.code).toBe('media_not_supported');
    });

    it("a file at the instance's size limit passes; one byte more is media_too_large", async () => {
      const instance = await instanceWith({ image_size_limit: 100_000 });
      const to = await connect(instance);
      const fits = await upload('fits.png', pngOf(100_000));
      const tooBig = await upload('too-big.png', pngOf(100_001));
      const message = await refusedEverywhere(
        to,
        { text: 'fits', media_ids: [fits] },
        { text: 'big', media_ids: [tooBig] },
        'media_too_large',
      );
      expect(message).toMatch(/Mastodon.*100000/);
      const postId = await publish(to, { text: 'fits', media_ids: [fits] });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const [uploadCall] = instance.callsOf('upload_media', to.token);
      expect(uploadCall.files[0].bytes.equals(pngOf(100_000))).toBe(true);
    });
  });

  describe('failures', () => {
    it(
      'a 429 waits until X-RateLimit-Reset; a status made then hung or dropped is published once',
      async () => {
        // Three accounts side by side: each one's retry waits for its own next status slot.
        const [limited, hung, dropped] = await Promise.all([connect(), connect(), connect()]);
        const reset = () => new Date(Date.now() + 1_500).toISOString();
        mastodon.script('post_status', {
          account: limited.mastodonId,
          status: 429,
          error: 'Too many requests',
          headers: { 'x-ratelimit-reset': reset(), 'x-ratelimit-remaining': '0' },
        });
        mastodon.script('post_status', { account: hung.mastodonId, afterServing: 'hang' });
        mastodon.script('post_status', { account: dropped.mastodonId, afterServing: 'drop' });
        const posts = await Promise.all(
          [limited, hung, dropped].map((to) => publish(to, { text: 'Exactly once' })),
        );
        for (const postId of posts)
          expect((await waitForPostStatus(t, postId, undefined, PACED_RETRY_MS)).status).toBe(
            'published',
          );

        const [refused, accepted] = statusCalls(limited);
        expect(statusCalls(limited)).toHaveLength(2);
        expect(refused.status).toBe(429);
        expect(accepted.at - refused.at).toBeGreaterThanOrEqual(1_000);
        expect(accepted.headers['idempotency-key']).toBe(refused.headers['idempotency-key']);
        expect(mastodon.statusesOf(limited.mastodonId)).toHaveLength(1);

        for (const [to, postId] of [
          [hung, posts[1]],
          [dropped, posts[2]],
        ] as const) {
          const made = mastodon.statusesOf(to.mastodonId);
          expect(made).toHaveLength(1);
          const calls = statusCalls(to);
          expect(calls.length).toBeGreaterThanOrEqual(2);
          expect(new Set(calls.map((c) => c.headers['idempotency-key']))).toEqual(
            new Set([made[0].idempotencyKey]),
          );
          expect(await targetOf(postId)).toMatchObject({
            status: 'published',
            messages: [{ id: made[0].id, url: made[0].url }],
            url: made[0].url,
          });
        }
      },
      PACED_RETRY_MS + 30_000,
    );

    it('the statuses window the instance reports in X-RateLimit-* holds the next status until its reset: no 429', async () => {
      // Herald's own count allows 300 statuses in 3 hours; this instance allows 2 in any 3 s
      // window, and says so only in its answers' headers.
      const period = 3_000;
      const instance = (await instanceWith({})).rateLimit('statuses', {
        limit: 2,
        periodMs: period,
      });
      const to = await connect(instance);
      const posts = [];
      for (const text of ['one', 'two', 'three', 'four']) posts.push(await publish(to, { text }));
      for (const postId of posts)
        expect((await waitForPostStatus(t, postId, undefined, 20_000)).status).toBe('published');
      const calls = statusCalls(to, instance);
      expect(calls.map((call) => call.status)).toEqual([200, 200, 200, 200]);
      const perWindow = new Map<number, number>();
      for (const call of calls) {
        const window = Math.floor(call.at / period);
        perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
      }
      expect(Math.max(...perWindow.values())).toBeLessThanOrEqual(2);
    }, 30_000);

    it('a refused token at send: account needs_reconnect, target account_needs_reconnect, event sent', async () => {
      const own = await world.make.owner('Mastodon reconnect');
      const to = await world.mastodonAccount(own.owner, own.project, own.key);
      const hook = await t.http
        .post(`/api/public/v1/projects/${own.project.id}/webhooks`)
        .set('Authorization', `Bearer ${own.key}`)
        .send({ url: receiver.url('/mastodon-reconnect'), events: ['channel.needs_reconnect'] })
        .expect(201);
      receiver.expect('/mastodon-reconnect', hook.body.secret as string);
      mastodon.script('post_status', {
        account: to.mastodonId,
        status: 401,
        error: 'The access token was revoked',
      });
      const res = await t.http
        .post(`/api/public/v1/projects/${own.project.id}/posts`)
        .set('Authorization', `Bearer ${own.key}`)
        .send({ text: 'Revoked', targets: [{ channel_ref: to.channel.id }], publish_now: true })
        .expect(201);
      expect((await waitForPostStatus(t, res.body.id as number)).status).toBe('failed');
      expect(statusCalls(to)).toHaveLength(1);
      const { rows } = await t.db.query('SELECT needs_reconnect FROM accounts WHERE id = $1', [
        to.id,
      ]);
      expect(rows[0].needs_reconnect).toBe(true);
      const [row] = await targetsOf(t, res.body.id as number);
      expect(row).toMatchObject({ status: 'failed', error_code: 'account_needs_reconnect' });
      expect(row.error_message).toContain('The access token was revoked');
      await waitFor(() => receiver.of('/mastodon-reconnect').length === 1, 10_000);
      expect(receiver.of('/mastodon-reconnect')[0].payload).toMatchObject({
        type: 'channel.needs_reconnect',
        data: { project_id: own.project.id, account_id: to.id, channel_refs: [to.channel.id] },
      });
      expect(receiver.rejected).toEqual([]);
    });

    it("a status the instance refuses fails its target mastodon_rejected with the instance's message", async () => {
      const to = await connect();
      mastodon.script('post_status', {
        account: to.mastodonId,
        status: 422,
        error: 'Validation failed: Text contains a disallowed word',
      });
      const postId = await publish(to, { text: 'Not welcome here' });
      expect((await waitForPostStatus(t, postId)).status).toBe('failed');
      expect(statusCalls(to)).toHaveLength(1);
      expect((await targetOf(postId)).error).toEqual({
        code: 'mastodon_rejected',
        message: 'Mastodon 422: Validation failed: Text contains a disallowed word',
      });
      const { rows } = await t.db.query('SELECT needs_reconnect FROM accounts WHERE id = $1', [
        to.id,
      ]);
      expect(rows[0].needs_reconnect).toBe(false);
    });
  });
});

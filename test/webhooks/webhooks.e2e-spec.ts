import {
  HOST_RESOLVER,
  type ResolvedAddress,
} from '../../src/infrastructure/outbound/pinned-address';
import { PERMISSION_MESSAGES } from '../../src/access/permissions';
import { MICROS } from '../support/expectations';
import { Factory, SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { targetsOf, waitForPostStatus } from '../support/publication';
import { SwitchableRedis } from '../support/switchable-redis';
import { allFlagsBut, addMember } from '../support/factories/team';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { startTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { sleep, waitFor } from '../support/waits';

/**
 * Webhooks (docs/api-rules.md#webhooks): management on both APIs, events written with the state
 * change that causes them, signed deliveries that the third-party `standardwebhooks` verifier
 * accepts, retries, disabling, a Redis outage, and the outbound address rules at creation and at
 * delivery.
 */

const FAST = {
  MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.1/32',
  PUBLICATION_ENQUEUE_TIMEOUT_MS: '300',
  PUBLICATION_SWEEP_INTERVAL_MS: '300',
  PUBLICATION_RETRY_BASE_MS: '50',
  TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '6000',
  WEBHOOK_RETRY_DELAYS_MS: '100,150,200',
  WEBHOOK_TIMEOUT_MS: '400',
  WEBHOOK_DISABLE_AFTER_EVENTS: '2',
  WEBHOOK_SWEEP_INTERVAL_MS: '300',
  RATE_LIMIT_OTHER: '100000',
  RATE_LIMIT_CREATE_POST: '100000',
};

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

let seq = 0;

describe('Webhooks', () => {
  let world: TelegramWorld;
  let t: TestApp;
  let telegram: TelegramStandIn;
  let make: Factory;
  let receiver: WebhookReceiver;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;
  let account: { id: number; token: string };
  let channel: TestChannel;

  const api = (path: string) => `/api/public/v1/projects/${project.id}${path}`;

  /** Creates an endpoint at a fresh path of the receiver, which learns its secret. */
  async function endpoint(events: string[], path = `/hook-${++seq}`, withKey = key) {
    const res = await t.http
      .post(api('/webhooks'))
      .set('Authorization', `Bearer ${withKey}`)
      .send({ url: receiver.url(path), events })
      .expect(201);
    receiver.expect(path, res.body.secret as string);
    return { id: res.body.id as number, path, secret: res.body.secret as string };
  }

  async function publishNow(text: string, channelRef = channel.id): Promise<number> {
    const res = await t.http
      .post(api('/posts'))
      .set('Authorization', `Bearer ${key}`)
      .send({ text, targets: [{ channel_ref: channelRef }], publish_now: true })
      .expect(201);
    return res.body.id as number;
  }

  async function deliveriesOf(webhookId: number, query = '') {
    const res = await t.http
      .get(api(`/webhooks/${webhookId}/deliveries${query}`))
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    return res.body as { items: Record<string, unknown>[]; count: number };
  }

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    world = await startWithTelegram(FAST);
    ({ t, telegram, make } = world);
    ({ owner, project, key } = await make.owner('Webhooks'));
    account = await make.telegramAccount(owner, project);
    channel = await make.channel(owner, account.id);
  });

  afterAll(async () => {
    await world?.close();
    await receiver?.stop();
  });

  beforeEach(() => telegram.reset());

  afterEach(async () => {
    // Every delivery must pass the third-party verifier.
    expect(receiver.rejected).toEqual([]);
    // A project holds at most ten webhooks: each test starts with none.
    const { body } = await t.http.get(api('/webhooks')).set('Authorization', `Bearer ${key}`);
    for (const { id } of body.items as { id: number }[])
      await t.http
        .delete(api(`/webhooks/${id}`))
        .set('Authorization', `Bearer ${key}`)
        .expect(204);
  });

  describe('management', () => {
    it('holds at most ten webhooks per project, test and live together, even when made at once', async () => {
      const testKey = await make.apiKey(owner, { mode: 'test' });
      await endpoint(['post.published'], `/hook-${++seq}`, testKey);
      const answers = await Promise.all(
        Array.from({ length: 12 }, () =>
          t.http
            .post(api('/webhooks'))
            .set('Authorization', `Bearer ${key}`)
            .send({ url: receiver.url(`/hook-${++seq}`), events: ['post.published'] }),
        ),
      );
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses).toEqual([...Array(9).fill(201), 409, 409, 409]);
      const refused = answers.find((res) => res.status === 409);
      expect(refused?.body.error).toEqual({
        code: 'limit_reached',
        message: 'A project holds at most 10 webhooks; delete one first',
      });
      const { rows } = await t.db.query(
        'SELECT count(*)::int AS n FROM webhooks WHERE project_id = $1',
        [project.id],
      );
      expect(rows[0].n).toBe(10);
      const tests = await t.http.get(api('/webhooks')).set('Authorization', `Bearer ${testKey}`);
      for (const { id } of tests.body.items as { id: number }[])
        await t.http
          .delete(api(`/webhooks/${id}`))
          .set('Authorization', `Bearer ${testKey}`)
          .expect(204);
    });

    it('a test key makes, lists and deletes test webhooks only; a live key never sees them', async () => {
      const live = await endpoint(['post.published']);
      const testKey = await make.apiKey(owner, { mode: 'test' });
      const made = await t.http
        .post(api('/webhooks'))
        .set('Authorization', `Bearer ${testKey}`)
        .send({ url: receiver.url(`/hook-${++seq}`), events: ['post.published'] })
        .expect(201);
      expect(made.body.test).toBe(true);
      const asTest = await t.http.get(api('/webhooks')).set('Authorization', `Bearer ${testKey}`);
      expect(asTest.body.items.map((w: { id: number }) => w.id)).toEqual([made.body.id]);
      const asLive = await t.http.get(api('/webhooks')).set('Authorization', `Bearer ${key}`);
      expect(asLive.body.items.map((w: { id: number }) => w.id)).toEqual([live.id]);
      const asApp = await t.http
        .get(`/api/projects/${project.id}/webhooks`)
        .set('Authorization', owner.auth);
      expect(asApp.body.items.map((w: { id: number }) => w.id)).toEqual([live.id]);

      // The other mode's webhook is not there, for every operation.
      for (const [who, id] of [
        [testKey, live.id],
        [key, made.body.id],
      ] as const) {
        const auth = `Bearer ${who}`;
        for (const res of [
          await t.http.delete(api(`/webhooks/${id}`)).set('Authorization', auth),
          await t.http.get(api(`/webhooks/${id}/deliveries`)).set('Authorization', auth),
          await t.http.post(api(`/webhooks/${id}/test`)).set('Authorization', auth),
        ]) {
          expect([res.status, res.body.error.code]).toEqual([404, 'webhook_not_found']);
        }
      }
      await t.http
        .delete(api(`/webhooks/${made.body.id}`))
        .set('Authorization', `Bearer ${testKey}`)
        .expect(204);
      const { rows } = await t.db.query('SELECT id FROM webhooks WHERE project_id = $1', [
        project.id,
      ]);
      expect(rows).toEqual([{ id: live.id }]);
    });

    it('creates an endpoint: the secret is shown once and stored sealed', async () => {
      const path = `/hook-${++seq}`;
      const res = await t.http
        .post(api('/webhooks'))
        .set('Authorization', `Bearer ${key}`)
        .send({ url: receiver.url(path), events: ['post.failed', 'post.published', 'post.failed'] })
        .expect(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        url: receiver.url(path),
        events: ['post.published', 'post.failed'],
        enabled: true,
        disabled_reason: null,
        test: false,
        secret: expect.stringMatching(SECRET),
        created_at: expect.stringMatching(MICROS),
      });
      const { rows } = await t.db.query('SELECT * FROM webhooks WHERE id = $1', [res.body.id]);
      expect(rows).toHaveLength(1);
      const stored = JSON.stringify(rows);
      expect(stored).not.toContain(res.body.secret);
      expect(stored).not.toContain(res.body.secret.slice('whsec_'.length));

      const list = await t.http
        .get(api('/webhooks'))
        .set('Authorization', `Bearer ${key}`)
        .expect(200);
      expect(list.body.count).toBe(list.body.items.length);
      const item = list.body.items.find((i: { id: number }) => i.id === res.body.id);
      expect(item).toEqual({ ...res.body, secret: undefined });
      expect(JSON.stringify(list.body)).not.toContain('whsec_');
    });

    it('deletes an endpoint (204), after which it is 404', async () => {
      const hook = await endpoint(['post.published']);
      await t.http
        .delete(api(`/webhooks/${hook.id}`))
        .set('Authorization', `Bearer ${key}`)
        .expect(204);
      for (const call of [
        t.http.delete(api(`/webhooks/${hook.id}`)),
        t.http.get(api(`/webhooks/${hook.id}/deliveries`)),
        t.http.post(api(`/webhooks/${hook.id}/test`)),
      ]) {
        const res = await call.set('Authorization', `Bearer ${key}`).expect(404);
        expect(res.body.error.code).toBe('webhook_not_found');
      }
    });

    it.each([
      [{ url: 'not a url', events: ['post.failed'] }, 'invalid_url'],
      [{ url: 'ftp://example.com/hook', events: ['post.failed'] }, 'invalid_url'],
      [{ url: 'http://user:pw@example.com/hook', events: ['post.failed'] }, 'invalid_url'],
      // localhost is allowed here (the allow-list covers 127.0.0.1): its refusal without one is
      // in 'A local receiver during development' below.
      [{ url: 'http://127.0.0.2/hook', events: ['post.failed'] }, 'url_not_allowed'],
      [{ url: 'http://10.0.0.1/hook', events: ['post.failed'] }, 'url_not_allowed'],
      [{ url: 'http://169.254.169.254/latest', events: ['post.failed'] }, 'url_not_allowed'],
      [{ url: 'http://[::1]/hook', events: ['post.failed'] }, 'url_not_allowed'],
      [{ url: 'http://[::ffff:10.0.0.1]/hook', events: ['post.failed'] }, 'url_not_allowed'],
      [{ url: 'http://100.64.0.1/hook', events: ['post.failed'] }, 'url_not_allowed'],
      [{ url: 'https://example.com/hook', events: [] }, 'validation_failed'],
      [{ url: 'https://example.com/hook', events: ['post.created'] }, 'validation_failed'],
      [{ url: 'https://example.com/hook', events: ['webhook.test'] }, 'validation_failed'],
      [{ url: 'https://example.com/hook' }, 'validation_failed'],
      [{ events: ['post.failed'] }, 'validation_failed'],
      [{ url: 42, events: ['post.failed'] }, 'validation_failed'],
    ])('refuses %j with 400 %s', async (body, code) => {
      const before = await t.db.query('SELECT count(*)::int AS n FROM webhooks');
      const res = await t.http
        .post(api('/webhooks'))
        .set('Authorization', `Bearer ${key}`)
        .send(body)
        .expect(400);
      expect(res.body.error.code).toBe(code);
      expect((await t.db.query('SELECT count(*)::int AS n FROM webhooks')).rows).toEqual(
        before.rows,
      );
    });

    it('answers 404 for an id that is not ours or not an id at all', async () => {
      const other = await make.owner('Other');
      const theirs = await t.http
        .post(`/api/public/v1/projects/${other.project.id}/webhooks`)
        .set('Authorization', `Bearer ${other.key}`)
        .send({ url: receiver.url('/theirs'), events: ['post.failed'] })
        .expect(201);
      // Only plain decimal ids name a row; '01', '1e0' or ' 1' never reach webhook 1.
      for (const id of [
        String(theirs.body.id),
        'abc',
        '01',
        '1e0',
        '%201',
        '0x1',
        '2147483648',
        '-1',
      ]) {
        const res = await t.http
          .delete(api(`/webhooks/${id}`))
          .set('Authorization', `Bearer ${key}`)
          .expect(404);
        expect(res.body.error.code).toBe('webhook_not_found');
      }
      // Someone else's project: the project is not found, whatever the webhook.
      const res = await t.http
        .get(`/api/public/v1/projects/${other.project.id}/webhooks`)
        .set('Authorization', `Bearer ${key}`)
        .expect(404);
      expect(res.body.error.code).toBe('project_not_found');
      expect(
        (await t.db.query('SELECT id FROM webhooks WHERE id = $1', [theirs.body.id])).rows,
      ).toHaveLength(1);
    });

    it('needs the webhooks:manage scope (403 insufficient_scope) and can_manage_settings (403 forbidden)', async () => {
      const narrow = await make.apiKey(owner, { scopes: ['projects:read', 'posts:read'] });
      for (const call of [
        t.http.get(api('/webhooks')),
        t.http.post(api('/webhooks')).send({ url: receiver.url('/x'), events: ['post.failed'] }),
        t.http.delete(api('/webhooks/1')),
        t.http.get(api('/webhooks/1/deliveries')),
        t.http.post(api('/webhooks/1/test')),
      ]) {
        const res = await call.set('Authorization', `Bearer ${narrow}`).expect(403);
        expect(res.body.error.code).toBe('insufficient_scope');
        expect(res.headers['x-ratelimit-limit']).toBeDefined();
      }

      const member = await make.admin('Editor without settings');
      await addMember(t, owner, project, member, 'editor', allFlagsBut('can_manage_settings'));
      const memberKey = await make.apiKey(member);
      const res = await t.http
        .post(api('/webhooks'))
        .set('Authorization', `Bearer ${memberKey}`)
        .send({ url: receiver.url('/member'), events: ['post.failed'] })
        .expect(403);
      expect(res.body.error).toEqual({
        code: 'forbidden',
        message: PERMISSION_MESSAGES.can_manage_settings,
      });

      const app = await t.http
        .get(`/api/projects/${project.id}/webhooks`)
        .set('Authorization', member.auth)
        .expect(403);
      expect(app.body.error.code).toBe('forbidden');
    });

    it('works the same on the application API', async () => {
      const path = `/app-${++seq}`;
      const created = await t.http
        .post(`/api/projects/${project.id}/webhooks`)
        .set('Authorization', owner.auth)
        .send({ url: receiver.url(path), events: ['channel.needs_reconnect'] })
        .expect(201);
      expect(created.body.secret).toMatch(SECRET);
      receiver.expect(path, created.body.secret);
      const test = await t.http
        .post(`/api/projects/${project.id}/webhooks/${created.body.id}/test`)
        .set('Authorization', owner.auth)
        .expect(202);
      await waitFor(() => receiver.of(path).length === 1);
      expect(receiver.of(path)[0].id).toBe(test.body.event_id);
      await waitFor(async () => (await deliveriesOf(created.body.id)).count === 1);
      const log = await t.http
        .get(`/api/projects/${project.id}/webhooks/${created.body.id}/deliveries`)
        .set('Authorization', owner.auth)
        .expect(200);
      expect(log.body.items[0]).toMatchObject({ event_id: test.body.event_id, status_code: 204 });
      await t.http
        .delete(`/api/projects/${project.id}/webhooks/${created.body.id}`)
        .set('Authorization', owner.auth)
        .expect(204);
    });
  });

  describe('events and deliveries', () => {
    it('webhook.test: a signed delivery with the Standard Webhooks headers, logged', async () => {
      const hook = await endpoint(['post.published']);
      const res = await t.http
        .post(api(`/webhooks/${hook.id}/test`))
        .set('Authorization', `Bearer ${key}`)
        .expect(202);
      expect(res.body).toEqual({ event_id: expect.stringMatching(/^msg_[0-9a-f]{32}$/) });
      await waitFor(() => receiver.of(hook.path).length === 1);
      const [delivery] = receiver.of(hook.path);
      expect(delivery.id).toBe(res.body.event_id);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(Math.abs(Number(delivery.timestamp) - Date.now() / 1000)).toBeLessThan(60);
      expect(delivery.payload).toEqual({
        type: 'webhook.test',
        timestamp: expect.stringMatching(MICROS),
        data: { project_id: project.id, webhook_id: hook.id },
      });
      await waitFor(async () => (await deliveriesOf(hook.id)).count === 1);
      expect((await deliveriesOf(hook.id)).items).toEqual([
        {
          id: expect.any(Number),
          event_id: res.body.event_id,
          event_type: 'webhook.test',
          attempt: 1,
          status_code: 204,
          error: null,
          duration_ms: expect.any(Number),
          created_at: expect.stringMatching(MICROS),
        },
      ]);
    });

    it('post.published: fired by a real publication, data is the post object', async () => {
      const hook = await endpoint(['post.published', 'post.failed']);
      const postId = await publishNow('Published with a webhook');
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      await waitFor(() => receiver.of(hook.path).length === 1);
      const [delivery] = receiver.of(hook.path);
      expect(delivery.payload.type).toBe('post.published');
      // The post object, as GET answers it, plus project_id.
      const post = await t.http
        .get(api(`/posts/${postId}`))
        .set('Authorization', `Bearer ${key}`)
        .expect(200);
      expect(delivery.payload.data).toEqual({ ...post.body, project_id: project.id });
      const [{ message_ids }] = await targetsOf(t, postId);
      const url = `https://t.me/${channel.username}/${message_ids[0]}`;
      expect(delivery.payload.data).toMatchObject({
        id: postId,
        status: 'published',
        targets: [
          expect.objectContaining({
            channel_ref: channel.id,
            status: 'published',
            message_ids: [expect.any(Number)],
            url,
            messages: [{ id: String(message_ids[0]), url }],
          }),
        ],
      });
      const { rows } = await t.db.query(
        `SELECT id, type, post_id FROM webhook_events WHERE post_id = $1`,
        [postId],
      );
      expect(rows).toEqual([{ id: delivery.id, type: 'post.published', post_id: postId }]);
      await sleep(400); // one event per state change: nothing more arrives
      expect(receiver.of(hook.path)).toHaveLength(1);
    });

    it('a test-mode post: its event, with test: true, reaches test webhooks only; live events reach live ones only', async () => {
      const hook = await endpoint(['post.published']);
      const testKey = await make.apiKey(owner, { mode: 'test' });
      const testHook = await endpoint(['post.published'], `/hook-${++seq}`, testKey);
      const res = await t.http
        .post(api('/posts'))
        .set('Authorization', `Bearer ${testKey}`)
        .send({ text: 'Sandbox', targets: [{ channel_ref: channel.id }], publish_now: true })
        .expect(201);
      expect((await waitForPostStatus(t, res.body.id)).status).toBe('published');
      await waitFor(() => receiver.of(testHook.path).length === 1);
      expect(receiver.of(testHook.path)[0].payload.data).toMatchObject({
        id: res.body.id,
        status: 'published',
        test: true,
      });
      expect(telegram.callsOf('sendMessage')).toEqual([]);

      const live = await publishNow('Live one');
      await waitFor(() => receiver.of(hook.path).length === 1);
      expect(receiver.of(hook.path)[0].payload.data).toMatchObject({ id: live, test: false });
      await sleep(400); // nothing crosses over
      expect(receiver.of(hook.path)).toHaveLength(1);
      expect(receiver.of(testHook.path)).toHaveLength(1);
      const { rows } = await t.db.query(
        `SELECT e.post_id, e.test, s.webhook_id FROM webhook_events e
           JOIN webhook_sends s ON s.event_id = e.id WHERE e.post_id = ANY($1) ORDER BY e.post_id`,
        [[res.body.id, live]],
      );
      expect(rows).toEqual([
        { post_id: res.body.id, test: true, webhook_id: testHook.id },
        { post_id: live, test: false, webhook_id: hook.id },
      ]);
      await t.http
        .delete(api(`/webhooks/${testHook.id}`))
        .set('Authorization', `Bearer ${testKey}`)
        .expect(204);
    });

    it('post.failed: carries each target error; an endpoint not subscribed gets nothing', async () => {
      const failed = await endpoint(['post.failed']);
      const publishedOnly = await endpoint(['post.published']);
      telegram.script('sendMessage', { status: 400, description: 'Bad Request: chat not found' });
      const postId = await publishNow('Fails');
      expect((await waitForPostStatus(t, postId)).status).toBe('failed');
      await waitFor(() => receiver.of(failed.path).length === 1);
      expect(receiver.of(failed.path)[0].payload).toMatchObject({
        type: 'post.failed',
        data: {
          id: postId,
          project_id: project.id,
          status: 'failed',
          targets: [
            {
              channel_ref: channel.id,
              status: 'failed',
              error: {
                code: 'telegram_rejected',
                message: expect.stringContaining('chat not found'),
              },
            },
          ],
        },
      });
      await sleep(400);
      expect(receiver.of(publishedOnly.path)).toEqual([]);
    });

    it('channel.needs_reconnect: once per loss of the account, again after a reconnect', async () => {
      const hook = await endpoint(['channel.needs_reconnect']);
      const own = await make.telegramAccount(owner, project);
      const ownChannel = await make.channel(owner, own.id);
      telegram.script(
        'sendMessage',
        { status: 401, description: 'Unauthorized' },
        { status: 401, description: 'Unauthorized' },
      );
      const first = await publishNow('Refused 1', ownChannel.id);
      const second = await publishNow('Refused 2', ownChannel.id).catch(() => null);
      expect((await waitForPostStatus(t, first)).status).toBe('failed');
      if (second) expect((await waitForPostStatus(t, second)).status).toBe('failed');
      await waitFor(() => receiver.of(hook.path).length === 1);
      expect(receiver.of(hook.path)[0].payload).toEqual({
        type: 'channel.needs_reconnect',
        timestamp: expect.stringMatching(MICROS),
        data: { project_id: project.id, account_id: own.id, channel_refs: [ownChannel.id] },
      });
      await sleep(400);
      expect(receiver.of(hook.path)).toHaveLength(1); // still disconnected: no second event

      // Reconnected, then lost again: a new event with a new id.
      await t.http
        .put(`/api/accounts/${own.id}`)
        .set('Authorization', owner.auth)
        .send({ bot_token: telegram.rotateToken(own.token) })
        .expect(200);
      telegram.script('sendMessage', { status: 403, description: 'Forbidden: bot was kicked' });
      expect(
        (await waitForPostStatus(t, await publishNow('Refused 3', ownChannel.id))).status,
      ).toBe('failed');
      await waitFor(() => receiver.of(hook.path).length === 2);
      const [a, b] = receiver.of(hook.path);
      expect(b.id).not.toBe(a.id);
      expect(b.payload.data).toEqual(a.payload.data);
    });

    it('retries after 500, a time-out and a 302 (never followed), with the same webhook-id', async () => {
      const hook = await endpoint(['post.published']);
      receiver.script(
        hook.path,
        { status: 500 },
        { status: 200, delayMs: 1_500 },
        { status: 302, headers: { location: receiver.url('/redirected') } },
        { status: 200 },
      );
      const res = await t.http
        .post(api(`/webhooks/${hook.id}/test`))
        .set('Authorization', `Bearer ${key}`)
        .expect(202);
      await waitFor(() => receiver.of(hook.path).length === 4, 10_000);
      expect(receiver.of(hook.path).map((d) => d.id)).toEqual(Array(4).fill(res.body.event_id));
      expect(receiver.hits).not.toContain('/redirected');
      await waitFor(async () => (await deliveriesOf(hook.id)).count === 4);
      const log = (await deliveriesOf(hook.id)).items;
      expect(log.map((d) => [d.attempt, d.status_code])).toEqual([
        [4, 200],
        [3, 302],
        [2, null],
        [1, 500],
      ]);
      expect(log.map((d) => d.error)).toEqual([
        null,
        'The receiver answered 302',
        'The receiver did not answer in time',
        'The receiver answered 500',
      ]);
      expect(log.every((d) => d.event_id === res.body.event_id)).toBe(true);
      expect((await deliveriesOf(hook.id, '?limit=2')).items.map((d) => d.attempt)).toEqual([4, 3]);
      const { rows } = await t.db.query(
        'SELECT status, attempts FROM webhook_sends WHERE event_id = $1',
        [res.body.event_id],
      );
      expect(rows).toEqual([{ status: 'succeeded', attempts: 4 }]);
    });

    it.each(['0', '101', 'x', '1.5', ''])(
      'refuses ?limit=%s of the delivery log',
      async (limit) => {
        const hook = await endpoint(['post.published']);
        const res = await t.http
          .get(api(`/webhooks/${hook.id}/deliveries?limit=${limit}`))
          .set('Authorization', `Bearer ${key}`)
          .expect(400);
        expect(res.body.error.code).toBe('validation_failed');
      },
    );

    it('disables an endpoint whose last N events failed every attempt; a success resets the count', async () => {
      const hook = await endpoint(['post.published']);
      const fail = { status: 500 };
      const test = () =>
        t.http
          .post(api(`/webhooks/${hook.id}/test`))
          .set('Authorization', `Bearer ${key}`)
          .expect(202);
      const failedSends = async () =>
        (
          await t.db.query(
            `SELECT count(*)::int AS n FROM webhook_sends WHERE webhook_id = $1 AND status = 'failed'`,
            [hook.id],
          )
        ).rows[0].n as number;

      // A failed event, then a delivered one: the count starts again.
      receiver.script(hook.path, fail, fail, fail, fail);
      await test();
      await waitFor(async () => (await failedSends()) === 1, 10_000);
      await test();
      await waitFor(() => receiver.of(hook.path).length === 5);
      await waitFor(async () => (await deliveriesOf(hook.id)).count === 5);

      // Two events in a row (WEBHOOK_DISABLE_AFTER_EVENTS=2) fail every one of their 4 attempts.
      receiver.script(hook.path, ...Array(8).fill(fail));
      await test();
      await waitFor(async () => (await failedSends()) === 2, 10_000);
      let list = await t.http.get(api('/webhooks')).set('Authorization', `Bearer ${key}`);
      expect(list.body.items.find((i: { id: number }) => i.id === hook.id).enabled).toBe(true);
      await test();
      await waitFor(async () => (await failedSends()) === 3, 10_000);
      list = await t.http.get(api('/webhooks')).set('Authorization', `Bearer ${key}`);
      expect(list.body.items.find((i: { id: number }) => i.id === hook.id)).toMatchObject({
        enabled: false,
        disabled_reason: expect.stringContaining('2 events in a row'),
      });

      // Disabled: a test event is not sent.
      const before = receiver.of(hook.path).length;
      await test();
      await sleep(500);
      expect(receiver.of(hook.path)).toHaveLength(before);
      expect(before).toBe(5 + 8);
    });
  });
});

describe('Webhooks when Redis is away: never lost', () => {
  // An app, a Redis it cuts and a receiver, then waits of up to 15 s each: more than jest's 30 s
  // on a loaded machine, though a few seconds idle.
  it('Redis cut during a publication: the event due now still arrives, once, without the queue', async () => {
    // Started inside the try: whatever did start is stopped even when the app does not.
    const receiver = new WebhookReceiver();
    const redis = new SwitchableRedis();
    let world: TelegramWorld | undefined;
    try {
      await receiver.start();
      await redis.start();
      world = await startWithTelegram({ ...FAST, REDIS_URL: redis.url });
      const { t, telegram, make } = world;
      const {
        project,
        key,
        channels: [channel],
      } = await make.ownerWithChannels('Outage');
      const hook = await t.http
        .post(`/api/public/v1/projects/${project.id}/webhooks`)
        .set('Authorization', `Bearer ${key}`)
        .send({ url: receiver.url('/outage'), events: ['post.published'] })
        .expect(201);
      receiver.expect('/outage', hook.body.secret);

      // The send is in flight when Redis goes: the post is published while Redis is away.
      telegram.script('sendMessage', { status: 200, delayMs: 800 });
      const post = await t.http
        .post(`/api/public/v1/projects/${project.id}/posts`)
        .set('Authorization', `Bearer ${key}`)
        .send({
          text: 'Through the outage',
          targets: [{ channel_ref: channel.id }],
          publish_now: true,
        })
        .expect(201);
      await waitFor(() => telegram.callsOf('sendMessage').length === 1);
      redis.down();
      expect((await waitForPostStatus(t, post.body.id)).status).toBe('published');
      // The worker that read the outbox delivers a send due now itself: Redis is not needed.
      await waitFor(() => receiver.deliveries.length === 1, 15_000);
      const sendsOfPost = async () =>
        (
          await t.db.query(
            `SELECT e.id, s.status FROM webhook_events e JOIN webhook_sends s ON s.event_id = e.id
              WHERE e.post_id = $1`,
            [post.body.id],
          )
        ).rows as { id: string; status: string }[];
      await waitFor(async () => (await sendsOfPost())[0]?.status === 'succeeded');
      const rows = await sendsOfPost();
      expect(rows).toEqual([{ id: expect.stringMatching(/^msg_/), status: 'succeeded' }]);

      redis.up = true;
      expect(receiver.deliveries[0]).toMatchObject({
        id: rows[0].id,
        payload: { type: 'post.published', data: { id: post.body.id, status: 'published' } },
      });
      expect(receiver.rejected).toEqual([]);
      await sleep(700);
      expect(receiver.deliveries).toHaveLength(1);
    } finally {
      await world?.close();
      await redis.stop();
      await receiver.stop();
    }
  }, 60_000);
});

describe('Webhook URLs and DNS: the outbound address rules at creation and at every delivery', () => {
  it('refuses a name resolving to a private address, and stops delivering when DNS turns to one', async () => {
    // The receiver on 127.0.0.2 (allowed by MEDIA_FETCH_ALLOW_CIDRS); a victim on 127.0.0.1.
    const receiver = new WebhookReceiver('127.0.0.2');
    const victim = new WebhookReceiver('127.0.0.1');
    const answers: Record<string, string[]> = { 'hooks.example.test': ['127.0.0.2'] };
    const resolver = async (host: string): Promise<ResolvedAddress[]> =>
      (answers[host] ?? []).map((address) => ({ address, family: 4 }));
    const telegram = new TelegramStandIn();
    let app: TestApp | undefined;
    try {
      await receiver.start();
      await victim.start(receiver.port);
      await telegram.start();
      const t = (app = await startTestApp(
        { ...FAST, MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.2/32', TELEGRAM_API_BASE_URL: telegram.url },
        { overrides: [{ provide: HOST_RESOLVER, useValue: resolver }] },
      ));
      const make = new Factory(t, telegram);
      const { project, key } = await make.owner('DNS');
      const create = (url: string) =>
        t.http
          .post(`/api/public/v1/projects/${project.id}/webhooks`)
          .set('Authorization', `Bearer ${key}`)
          .send({ url, events: ['post.failed'] });

      answers['private.example.test'] = ['10.1.2.3'];
      answers['mixed.example.test'] = ['127.0.0.2', '127.0.0.1'];
      for (const url of [
        `http://private.example.test:${receiver.port}/`,
        `http://mixed.example.test:${receiver.port}/`,
        `http://127.0.0.1:${receiver.port}/`,
        `http://localhost:${receiver.port}/`,
      ]) {
        expect((await create(url).expect(400)).body.error.code).toBe('url_not_allowed');
      }
      expect(
        (await create(`http://unknown.example.test:${receiver.port}/`).expect(400)).body.error.code,
      ).toBe('invalid_url');

      const url = `http://hooks.example.test:${receiver.port}/dns`;
      const hook = await create(url).expect(201);
      receiver.expect('/dns', hook.body.secret);
      victim.expect('/dns', hook.body.secret);
      const test = () =>
        t.http
          .post(`/api/public/v1/projects/${project.id}/webhooks/${hook.body.id}/test`)
          .set('Authorization', `Bearer ${key}`)
          .expect(202);
      await test();
      await waitFor(() => receiver.deliveries.length === 1);

      // DNS now answers the loopback address that is not allowed: refused at delivery.
      answers['hooks.example.test'] = ['127.0.0.1'];
      const refused = await test();
      await waitFor(async () => {
        const { rows } = await t.db.query(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = $1`,
          [refused.body.event_id],
        );
        return rows[0].n === 4; // the first attempt and its 3 retries
      }, 10_000);
      const { rows } = await t.db.query(
        `SELECT status_code, error FROM webhook_deliveries WHERE event_id = $1`,
        [refused.body.event_id],
      );
      expect(rows.every((r) => r.status_code === null && /^url_not_allowed/.test(r.error))).toBe(
        true,
      );
      expect(victim.hits).toEqual([]);
      expect(receiver.deliveries).toHaveLength(1);
      expect([...receiver.rejected, ...victim.rejected]).toEqual([]);
    } finally {
      await app?.close();
      await telegram.stop();
      await victim.stop();
      await receiver.stop();
    }
  });
});

describe('A local receiver during development: OUTBOUND_ALLOW_CIDRS', () => {
  it('admits a localhost URL when the list covers loopback, under the new name and the old one', async () => {
    for (const variable of ['OUTBOUND_ALLOW_CIDRS', 'MEDIA_FETCH_ALLOW_CIDRS']) {
      const receiver = await new WebhookReceiver('127.0.0.1').start();
      const world = await startWithTelegram({ ...FAST, [variable]: '127.0.0.0/8' });
      try {
        const { project, key } = await world.make.owner(`Local ${variable}`);
        const hook = await world.t.http
          .post(`/api/public/v1/projects/${project.id}/webhooks`)
          .set('Authorization', `Bearer ${key}`)
          .send({ url: `http://localhost:${receiver.port}/local`, events: ['post.failed'] });
        expect({ variable, status: hook.status, error: hook.body.error }).toEqual({
          variable,
          status: 201,
        });
        receiver.expect('/local', hook.body.secret);
        await world.t.http
          .post(`/api/public/v1/projects/${project.id}/webhooks/${hook.body.id}/test`)
          .set('Authorization', `Bearer ${key}`)
          .expect(202);
        await waitFor(() => receiver.deliveries.length === 1);
        expect(receiver.deliveries[0].payload.type).toBe('webhook.test');
        expect(receiver.rejected).toEqual([]);
      } finally {
        await world.close();
        await receiver.stop();
      }
    }
  });

  it('still refuses localhost when the list does not cover loopback', async () => {
    const world = await startWithTelegram({ ...FAST, OUTBOUND_ALLOW_CIDRS: '10.9.0.0/16' });
    try {
      const { project, key } = await world.make.owner('Not local');
      const res = await world.t.http
        .post(`/api/public/v1/projects/${project.id}/webhooks`)
        .set('Authorization', `Bearer ${key}`)
        .send({ url: 'http://localhost:9/hook', events: ['post.failed'] });
      expect({ status: res.status, code: res.body.error?.code }).toEqual({
        status: 400,
        code: 'url_not_allowed',
      });
    } finally {
      await world.close();
    }
  });
});

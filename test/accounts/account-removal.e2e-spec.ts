import { Factory, SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { targetsOf, waitForPostStatus } from '../support/publication';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { TestApp } from '../support/test-app';

interface PostObject {
  id: number;
  status: string;
  platform: string | null;
  channel_ids: string[];
  published_at: string | null;
  targets: {
    channel_ref: string;
    channel_id: string;
    status: string;
    error: { code: string; message: string } | null;
    message_ids: number[];
    messages: { id: string; url: string | null }[];
    url: string | null;
    published_at: string | null;
  }[];
}

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

/**
 * Removing an account (docs/api-rules.md#post-states): its secrets are erased, its channels leave
 * every list and can no longer be named, every post keeps its targets and their history, a target
 * still pending on it fails `channel_removed`, and no post is ever `published` without a send.
 */
describe('Removing an account keeps the history; nothing is published without a send', () => {
  let world: TelegramWorld;
  let t: TestApp;
  let telegram: TelegramStandIn;
  let make: Factory;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;
  let testKey: string;

  beforeAll(async () => {
    world = await startWithTelegram({
      PUBLICATION_RETRY_BASE_MS: '50',
      RATE_LIMIT_CREATE_POST: '1000',
      RATE_LIMIT_PUBLISH: '1000',
      RATE_LIMIT_OTHER: '1000',
    });
    ({ t, telegram, make } = world);
    ({ owner, project, key } = await make.owner('Removal'));
    testKey = await make.apiKey(owner, { mode: 'test' });
  });

  afterAll(() => world?.close());

  beforeEach(() => telegram.reset());

  const api = (method: 'get' | 'post', path: string, as = key) =>
    t.http[method](`/api/public/v1/projects/${project.id}${path}`).set(
      'Authorization',
      `Bearer ${as}`,
    );
  const getPost = async (id: number, as = key) =>
    (await api('get', `/posts/${id}`, as).expect(200)).body as PostObject;
  const listItem = async (id: number) =>
    ((await api('get', '/posts?limit=100').expect(200)).body.items as PostObject[]).find(
      (p) => p.id === id,
    )!;
  const removeAccount = (id: number) =>
    t.http.delete(`/api/accounts/${id}`).set('Authorization', owner.auth).expect(204);
  const sends = () => telegram.calls.filter((c) => c.method.startsWith('send'));
  const bot = async () => {
    const account = await make.telegramAccount(owner, project);
    return { account, channel: await make.channel(owner, account.id) };
  };
  const schedule = async (channels: TestChannel[], as = key) =>
    (
      await api('post', '/posts', as)
        .send({
          text: 'Later',
          targets: channels.map((c) => ({ channel_ref: c.id })),
          scheduled_at: inSeconds(2),
        })
        .expect(201)
    ).body as { id: number; status: string };

  it('a published post keeps its targets, message ids, links and list fields; the secrets are erased', async () => {
    const { account, channel } = await bot();
    const created = await api('post', '/posts')
      .send({ text: 'Sent', targets: [{ channel_ref: channel.id }], publish_now: true })
      .expect(201);
    expect((await waitForPostStatus(t, created.body.id)).status).toBe('published');
    const before = await getPost(created.body.id);
    const beforeItem = await listItem(created.body.id);
    expect(before.targets).toHaveLength(1);

    await removeAccount(account.id);

    expect(await getPost(created.body.id)).toEqual(before);
    expect(await listItem(created.body.id)).toEqual(beforeItem);
    expect(beforeItem).toMatchObject({ platform: 'telegram', channel_ids: [channel.channel_id] });
    const { rows } = await t.db.query(
      'SELECT credentials_encrypted, session_encrypted, removed_at FROM accounts WHERE id = $1',
      [account.id],
    );
    expect(rows[0]).toMatchObject({ credentials_encrypted: null, session_encrypted: null });
    expect(rows[0].removed_at).not.toBeNull();
  });

  it('its channels leave the lists and cannot be named in a post (400 channel_not_found)', async () => {
    const { account, channel } = await bot();
    const listed = async () => {
      const channels = (await api('get', '/channels').expect(200)).body.items as { id: string }[];
      const stats = await t.http
        .get(`/api/analytics/channels?project_id=${project.id}`)
        .set('Authorization', owner.auth)
        .expect(200);
      return [channels, stats.body.items as { id: string }[]].map((list) =>
        list.some((c) => c.id === channel.id),
      );
    };
    expect(await listed()).toEqual([true, true]);
    await removeAccount(account.id);
    expect(await listed()).toEqual([false, false]);
    for (const body of [
      { text: 'Draft', targets: [{ channel_ref: channel.id }] },
      { text: 'Now', targets: [{ channel_ref: channel.id }], publish_now: true },
    ]) {
      const res = await api('post', '/posts').send(body).expect(400);
      expect(res.body.error.code).toBe('channel_not_found');
    }
    const again = await t.http
      .delete(`/api/accounts/${account.id}`)
      .set('Authorization', owner.auth)
      .expect(404);
    expect(again.body.error.code).toBe('account_not_found');
    const put = await t.http
      .put(`/api/accounts/${account.id}`)
      .set('Authorization', owner.auth)
      .send({ bot_token: account.token })
      .expect(404);
    expect(put.body.error.code).toBe('account_not_found');
  });

  it('a scheduled post whose account is removed fails channel_removed at its time: never published, nothing sent', async () => {
    const { account, channel } = await bot();
    const post = await schedule([channel]);
    await removeAccount(account.id);

    const state = await waitForPostStatus(t, post.id, ['published', 'failed'], 15_000);

    expect(state).toEqual({ status: 'failed', published_at: null });
    expect(sends()).toEqual([]);
    const read = await getPost(post.id);
    expect(read).toMatchObject({
      status: 'failed',
      published_at: null,
      platform: 'telegram',
      channel_ids: [channel.channel_id],
    });
    expect(read.targets).toEqual([
      expect.objectContaining({
        channel_ref: channel.id,
        status: 'failed',
        error: { code: 'channel_removed', message: expect.any(String) },
        message_ids: [],
      }),
    ]);
  });

  it('a draft published to its own targets: the removed one fails channel_removed, the others go on', async () => {
    const removed = await bot();
    const kept = await bot();
    const draft = await api('post', '/posts')
      .send({
        text: 'Two bots',
        targets: [{ channel_ref: removed.channel.id }, { channel_ref: kept.channel.id }],
      })
      .expect(201);
    await removeAccount(removed.account.id);

    await api('post', `/posts/${draft.body.id}/publish`).send({}).expect(202);

    expect((await waitForPostStatus(t, draft.body.id)).status).toBe('failed');
    expect(sends().map((c) => c.params.chat_id)).toEqual([kept.channel.channel_id]);
    const targets = await targetsOf(t, draft.body.id);
    expect(targets.map((x) => [x.chat_id, x.status, x.error_code])).toEqual([
      [removed.channel.channel_id, 'failed', 'channel_removed'],
      [kept.channel.channel_id, 'published', null],
    ]);
  });

  it('a test post runs the same rule: channel_removed, failed, never published', async () => {
    const { account, channel } = await bot();
    const post = await schedule([channel], testKey);
    await removeAccount(account.id);

    expect((await waitForPostStatus(t, post.id)).status).toBe('failed');
    const read = await getPost(post.id, testKey);
    expect(read.targets.map((x) => x.error?.code)).toEqual(['channel_removed']);
  });

  it('a post that reaches delivery with no target left fails, never published', async () => {
    const { channel } = await bot();
    const post = await schedule([channel]);
    // Whatever took the row away under the post: the final transition must not read it as done.
    await t.db.query('DELETE FROM post_targets WHERE post_id = $1', [post.id]);

    const state = await waitForPostStatus(t, post.id);

    expect(state).toEqual({ status: 'failed', published_at: null });
    expect(sends()).toEqual([]);
  });

  it('connecting the same bot again makes a new account; old posts keep naming the removed one', async () => {
    const { account, channel } = await bot();
    const created = await api('post', '/posts')
      .send({ text: 'Before', targets: [{ channel_ref: channel.id }], publish_now: true })
      .expect(201);
    await waitForPostStatus(t, created.body.id);
    await removeAccount(account.id);

    const again = await t.http
      .post('/api/accounts')
      .set('Authorization', owner.auth)
      .send({ project_id: project.id, platform: 'telegram', bot_token: account.token })
      .expect(201);

    expect(again.body.id).not.toBe(account.id);
    const readded = await t.http
      .post(`/api/accounts/${again.body.id}/channels`)
      .set('Authorization', owner.auth)
      .send({ chat: channel.channel_id })
      .expect(201);
    expect(readded.body.id).not.toBe(channel.id);
    expect((await getPost(created.body.id)).targets[0]).toMatchObject({
      channel_ref: channel.id,
      status: 'published',
    });
  });

  it('new credentials of another identity are refused (409 account_mismatch); a new token of the same bot is taken', async () => {
    const { account, channel } = await bot();
    const other = await t.http
      .put(`/api/accounts/${account.id}`)
      .set('Authorization', owner.auth)
      .send({ bot_token: telegram.addBot('someone_else_bot') })
      .expect(409);
    expect(other.body.error).toEqual({
      code: 'account_mismatch',
      message: expect.stringContaining('@someone_else_bot'),
    });

    const rotated = telegram.rotateToken(account.token);
    await t.http
      .put(`/api/accounts/${account.id}`)
      .set('Authorization', owner.auth)
      .send({ bot_token: rotated })
      .expect(200);
    const created = await api('post', '/posts')
      .send({ text: 'Same bot', targets: [{ channel_ref: channel.id }], publish_now: true })
      .expect(201);
    expect((await waitForPostStatus(t, created.body.id)).status).toBe('published');
    expect(sends().map((c) => c.token)).toEqual([rotated]);
  });
});

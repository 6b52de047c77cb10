import { PERMISSION_MESSAGES } from '../../src/access/permissions';
import { Factory, SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { waitForPostStatus } from '../support/publication';
import { addMember, allFlagsBut } from '../support/factories/team';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { TestApp } from '../support/test-app';
import { TELEGRAM_CHANNEL_LIMITS } from '../support/expectations';

/** A channel as channel lists show it: with its public link and its platform's limits. */
const listed = (channel: TestChannel) => ({
  ...channel,
  url: `https://t.me/${channel.username}`,
  limits: TELEGRAM_CHANNEL_LIMITS,
  missing_since: null,
  reconnect_by: null,
});

/** The application API's post routes and channel analytics, on the real pipeline. */
describe('Application post routes and analytics', () => {
  let world: TelegramWorld;
  let t: TestApp;
  let telegram: TelegramStandIn;
  let make: Factory;
  let owner: SignedInUser;
  let project: TestProject;
  let channel: TestChannel;
  let quiet: TestChannel;

  beforeAll(async () => {
    world = await startWithTelegram({
      PUBLICATION_RETRY_BASE_MS: '50',
      TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '6000',
    });
    ({ t, telegram, make } = world);
    owner = await make.user('Owner');
    project = await make.project(owner, 'App posts');
    const account = await make.telegramAccount(owner, project);
    channel = await make.channel(owner, account.id);
    quiet = await make.channel(owner, account.id);
  });

  afterAll(async () => {
    await world?.close();
  });

  beforeEach(() => telegram.reset());

  const as = (user: SignedInUser) => ({
    get: (path: string) => t.http.get(path).set('Authorization', user.auth),
    post: (path: string, body: object) =>
      t.http.post(path).set('Authorization', user.auth).send(body),
    put: (path: string, body: object) =>
      t.http.put(path).set('Authorization', user.auth).send(body),
    delete: (path: string) => t.http.delete(path).set('Authorization', user.auth),
  });

  it('creates a draft (201), lists it, updates it (200) and deletes it (204)', async () => {
    const created = await as(owner)
      .post('/api/posts', { project_id: project.id, text: 'Draft from the app' })
      .expect(201);
    expect(created.body).toMatchObject({
      status: 'draft',
      project_id: project.id,
      text: 'Draft from the app',
    });
    const id = created.body.id as number;
    const { rows } = await t.db.query(
      'SELECT created_by_user_id, status FROM posts WHERE id = $1',
      [id],
    );
    expect(rows).toEqual([{ created_by_user_id: owner.id, status: 'draft' }]);

    const list = await as(owner).get(`/api/posts?project_id=${project.id}&limit=5`).expect(200);
    expect(list.body.items[0]).toMatchObject({ id, status: 'draft', text: 'Draft from the app' });
    expect(list.body.count).toBe(list.body.items.length);

    const updated = await as(owner)
      .put(`/api/posts/${id}`, { text: 'Edited', targets: [{ channel_ref: channel.id }] })
      .expect(200);
    expect(updated.body).toMatchObject({ id, text: 'Edited', channel_ids: [channel.channel_id] });

    await as(owner).delete(`/api/posts/${id}`).expect(204);
    expect((await t.db.query('SELECT 1 FROM posts WHERE id = $1', [id])).rowCount).toBe(0);
  });

  it('validates list queries and bodies', async () => {
    let res = await as(owner).get(`/api/posts?project_id=${project.id}&limit=0`).expect(400);
    expect(res.body.error.code).toBe('validation_failed');
    res = await as(owner).get('/api/posts').expect(400);
    expect(res.body.error.code).toBe('validation_failed');
    res = await as(owner)
      .post('/api/posts', {
        project_id: project.id,
        text: 'x',
        scheduled_at: '2020-01-01T00:00:00Z',
      })
      .expect(400);
    expect(res.body.error.message).toContain('scheduled_at');
    res = await as(owner)
      .post('/api/posts', { project_id: project.id, text: 'x', colour: 'red' })
      .expect(400);
    expect(res.body.error.message).toContain('colour');
  });

  it('PUT refuses a scheduled_at that is not an instant, past, or over a year ahead, and leaves the post as it was', async () => {
    const id = (
      await as(owner).post('/api/posts', { project_id: project.id, text: 'Keep' }).expect(201)
    ).body.id as number;
    const yearsAhead = new Date(Date.now() + 2 * 366 * 24 * 3600 * 1000).toISOString();
    for (const scheduled_at of ['tomorrow', '2020-01-01T00:00:00Z', yearsAhead]) {
      const res = await as(owner).put(`/api/posts/${id}`, { scheduled_at }).expect(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.message).toContain('scheduled_at');
    }
    const { rows } = await t.db.query(
      'SELECT status, scheduled_at, publish_attempt FROM posts WHERE id = $1',
      [id],
    );
    expect(rows).toEqual([{ status: 'draft', scheduled_at: null, publish_attempt: 0 }]);
  });

  it('publishes through the same pipeline as the public API (202, then delivered)', async () => {
    const created = await as(owner)
      .post('/api/posts', { project_id: project.id, text: 'Hello, channel' })
      .expect(201);
    const res = await as(owner)
      .post('/api/posts/publish', {
        project_id: project.id,
        post_id: created.body.id,
        targets: [{ channel_ref: channel.id }],
      })
      .expect(202);
    expect(res.body).toEqual({ id: created.body.id, status: 'publishing', test: false });
    expect((await waitForPostStatus(t, created.body.id)).status).toBe('published');
    const sent = telegram.callsOf('sendMessage');
    expect(sent).toHaveLength(1);
    expect(sent[0].params).toMatchObject({ chat_id: channel.channel_id, text: 'Hello, channel' });
  });

  it('answers post_not_found for a post of another project, and changes nothing', async () => {
    const stranger = await make.user();
    const other = await make.project(stranger);
    const foreign = await as(stranger)
      .post('/api/posts', { project_id: other.id, text: 'theirs' })
      .expect(201);
    const id = foreign.body.id as number;
    for (const call of [
      as(owner).put(`/api/posts/${id}`, { text: 'mine' }),
      as(owner).delete(`/api/posts/${id}`),
      as(owner).post('/api/posts/publish', {
        project_id: project.id,
        post_id: id,
        targets: [{ channel_ref: channel.id }],
      }),
    ]) {
      const res = await call.expect(404);
      expect(res.body.error.code).toBe('post_not_found');
    }
    const { rows } = await t.db.query('SELECT text, status FROM posts WHERE id = $1', [id]);
    expect(rows).toEqual([{ text: 'theirs', status: 'draft' }]);
  });

  it('can_edit_content without can_publish may draft, but not schedule or publish_now', async () => {
    const writer = await make.user();
    await addMember(t, owner, project, writer, 'editor', allFlagsBut('can_publish'));
    await as(writer)
      .post('/api/posts', { project_id: project.id, text: 'just a draft' })
      .expect(201);
    const before = await t.db.query('SELECT count(*)::int AS n FROM posts');
    for (const extra of [
      { publish_now: true },
      { scheduled_at: new Date(Date.now() + 3_600_000).toISOString() },
    ]) {
      const res = await as(writer)
        .post('/api/posts', {
          project_id: project.id,
          text: 'now!',
          targets: [{ channel_ref: channel.id }],
          ...extra,
        })
        .expect(403);
      expect(res.body.error).toEqual({
        code: 'forbidden',
        message: PERMISSION_MESSAGES.can_publish,
      });
    }
    const after = await t.db.query('SELECT count(*)::int AS n FROM posts');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('GET /api/analytics/channels counts scheduled, published and failed posts per channel', async () => {
    const fresh = await make.project(owner, 'Analytics');
    const account = await make.telegramAccount(owner, fresh);
    const a = await make.channel(owner, account.id);
    const b = await make.channel(owner, account.id);
    const idle = await make.channel(owner, account.id);
    const post = (body: object) =>
      as(owner)
        .post('/api/posts', { project_id: fresh.id, ...body })
        .expect(201);

    // Two scheduled posts on a, one of them also on b.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await post({ text: 's1', scheduled_at: later, targets: [{ channel_ref: a.id }] });
    await post({
      text: 's2',
      scheduled_at: later,
      targets: [{ channel_ref: a.id }, { channel_ref: b.id }],
    });
    // One published on a and b.
    const ok = await post({
      text: 'p1',
      publish_now: true,
      targets: [{ channel_ref: a.id }, { channel_ref: b.id }],
    });
    expect((await waitForPostStatus(t, ok.body.id)).status).toBe('published');
    // One that Telegram refuses on b for good.
    telegram.script('sendMessage', {
      status: 400,
      description: 'Bad Request: message is too long',
    });
    const bad = await post({ text: 'f1', publish_now: true, targets: [{ channel_ref: b.id }] });
    expect((await waitForPostStatus(t, bad.body.id)).status).toBe('failed');
    // A draft counts nowhere.
    await post({ text: 'd1', targets: [{ channel_ref: a.id }] });

    const res = await as(owner).get(`/api/analytics/channels?project_id=${fresh.id}`).expect(200);
    expect(res.body).toEqual({
      items: [
        { ...listed(a), scheduled: 2, published: 1, failed: 0 },
        { ...listed(b), scheduled: 1, published: 1, failed: 1 },
        { ...listed(idle), scheduled: 0, published: 0, failed: 0 },
      ],
      count: 3,
    });
    // Another project's channels never show.
    const mine = await as(owner)
      .get(`/api/analytics/channels?project_id=${project.id}`)
      .expect(200);
    expect(mine.body.items.map((i: { id: string }) => i.id)).toEqual([channel.id, quiet.id]);
  });
});

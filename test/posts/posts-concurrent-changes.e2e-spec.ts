import { Client } from 'pg';
import { PostInserts } from '../../src/domains/posts/post-inserts.repository';
import { Factory, SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { newDraft } from '../support/factories/new-post';
import { TestApp } from '../support/test-app';
import { waitFor } from '../support/waits';

/**
 * A post written while one of its channels' accounts is being deleted: bad input is a clear error,
 * never a 500 (docs/api-rules.md#hostile-input-and-outages). The deletion is the account route's
 * own statement, held open in a transaction of the test's so that it commits while the request is
 * under way: then the request answers 400 channel_not_found, as it does once the deletion is over,
 * and writes nothing.
 */
describe('Posts written while their channels are deleted', () => {
  let world: TelegramWorld;
  let t: TestApp;
  let make: Factory;
  let owner: SignedInUser;
  let key: string;
  let project: TestProject;

  beforeAll(async () => {
    world = await startWithTelegram();
    ({ t, make } = world);
    ({ owner, project, key } = await make.owner('Concurrent changes'));
  });

  afterAll(async () => {
    await world?.close();
  });

  const posts = (path = '') => `/api/public/v1/projects/${project.id}/posts${path}`;
  const bearer = () => `Bearer ${key}`;

  /** A channel of an account of its own, so that deleting the account takes only this channel. */
  async function freshChannel(): Promise<TestChannel> {
    const account = await make.telegramAccount(owner, project);
    return make.channel(owner, account.id);
  }

  async function draftWithoutTargets(): Promise<number> {
    const res = await t.http
      .post(posts())
      .set('Authorization', bearer())
      .send({ text: 'A draft' })
      .expect(201);
    return (res.body as { id: number }).id;
  }

  /**
   * Runs `request` while another session deletes the channel's account: the deletion starts
   * first, the request runs into its lock, and the deletion commits while the request waits.
   */
  async function whileAccountIsDeleted<T>(
    channel: TestChannel,
    request: () => Promise<T>,
  ): Promise<T> {
    const deleter = new Client({ connectionString: t.config.databaseUrl });
    await deleter.connect();
    try {
      await deleter.query('BEGIN');
      // The row lock DELETE /api/accounts/{id} takes (AccountsRepository.remove, which also names
      // the project): the account and its channels stay, removed.
      await deleter.query(
        'UPDATE accounts SET removed_at = now(), credentials_encrypted = NULL WHERE id = $1',
        [channel.account_id],
      );
      // Started now (a supertest request leaves only when awaited), answered after the commit.
      const answer = (async () => await request())();
      await waitFor(requestWaitsForALock, 10_000);
      await deleter.query('COMMIT');
      return await answer;
    } finally {
      await deleter.end();
    }
  }

  /** The request waits for the deleter's lock (the deleter itself waits for nothing). */
  const requestWaitsForALock = async () =>
    (
      await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      )
    ).rows[0].n > 0;

  const countPosts = async () =>
    (
      await t.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM posts WHERE project_id = $1',
        [project.id],
      )
    ).rows[0].n;

  const expectChannelNotFound = (
    res: { status: number; body: { error: { code: string; message: string } } },
    channel: TestChannel,
  ) => {
    expect(res.status).toBe(400);
    const problem = {
      code: 'channel_not_found',
      message: `Channel ${channel.id} is not a channel of this project`,
    };
    expect(res.body.error).toEqual({
      ...problem,
      details: [{ ...problem, field: 'targets', channel_ref: channel.id }],
    });
  };

  it('POST /posts: 400 channel_not_found, and no post is stored', async () => {
    const channel = await freshChannel();
    const before = await countPosts();
    const res = await whileAccountIsDeleted(channel, () =>
      t.http
        .post(posts())
        .set('Authorization', bearer())
        .send({ text: 'Hello', targets: [{ channel_ref: channel.id }] }),
    );
    expectChannelNotFound(res, channel);
    expect(await countPosts()).toBe(before);
  });

  it('POST /posts/{id}/publish: 400 channel_not_found, and the draft stays a draft without targets', async () => {
    const channel = await freshChannel();
    const id = await draftWithoutTargets();
    const res = await whileAccountIsDeleted(channel, () =>
      t.http
        .post(posts(`/${id}/publish`))
        .set('Authorization', bearer())
        .send({ targets: [{ channel_ref: channel.id }] }),
    );
    expectChannelNotFound(res, channel);
    const { rows } = await t.db.query(
      `SELECT status, publish_attempt, (SELECT count(*)::int FROM post_targets WHERE post_id = $1) AS targets
         FROM posts WHERE id = $1`,
      [id],
    );
    expect(rows).toEqual([{ status: 'draft', publish_attempt: 0, targets: 0 }]);
  });

  it('PATCH /posts/{id}: 400 channel_not_found, and the draft keeps its fields', async () => {
    const channel = await freshChannel();
    const id = await draftWithoutTargets();
    const res = await whileAccountIsDeleted(channel, () =>
      t.http
        .patch(posts(`/${id}`))
        .set('Authorization', bearer())
        .send({ text: 'Changed', targets: [{ channel_ref: channel.id }] }),
    );
    expectChannelNotFound(res, channel);
    const { rows } = await t.db.query(
      `SELECT text, (SELECT count(*)::int FROM post_targets WHERE post_id = $1) AS targets
         FROM posts WHERE id = $1`,
      [id],
    );
    expect(rows).toEqual([{ text: 'A draft', targets: 0 }]);
  });

  it('posts inserted in one statement with a post to the deleted channel: that one is refused, the others are stored', async () => {
    const doomed = await freshChannel();
    const kept = await freshChannel();
    const repository = t.app.get(PostInserts);
    const draft = (text: string, targets: TestChannel[] = []) =>
      repository.insertPost(newDraft(project, owner, text, targets));
    // The first goes at once, alone; the other two wait for it and then share one statement,
    // which runs into the deletion's lock and fails when the deletion commits.
    const [, stored, gone] = await whileAccountIsDeleted(doomed, () =>
      Promise.all([
        draft('Before the shared statement'),
        draft('Beside the deleted channel', [kept]),
        draft('To the deleted channel', [doomed]),
      ]),
    );
    expect(gone).toBeNull();
    const { rows } = await t.db.query<{ text: string; channel_id: number }>(
      `SELECT p.text, t.channel_id FROM posts p JOIN post_targets t ON t.post_id = p.id
        WHERE p.project_id = $1 AND p.text LIKE '%the deleted channel'`,
      [project.id],
    );
    expect(rows).toEqual([
      { text: 'Beside the deleted channel', channel_id: await make.channelRowId(kept) },
    ]);
    expect(stored?.text).toBe('Beside the deleted channel');
  });

  it('a request whose channels stay answers as before: the lock is released at commit', async () => {
    const channel = await freshChannel();
    const id = await draftWithoutTargets();
    await t.http
      .patch(posts(`/${id}`))
      .set('Authorization', bearer())
      .send({ targets: [{ channel_ref: channel.id }] })
      .expect(200);
    // The checked insert ran (an unknown media id refuses the one-statement insert) and ended.
    const refused = await t.http
      .post(posts())
      .set('Authorization', bearer())
      .send({
        text: 'With media',
        media_ids: [2147483000],
        targets: [{ channel_ref: channel.id }],
      });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('media_not_found');
    const deleted = await t.http
      .delete(`/api/accounts/${channel.account_id}`)
      .set('Authorization', owner.auth);
    expect(deleted.status).toBe(204);
  });
});

import { DataSource } from 'typeorm';
import { UserPostMonths1795430000001 } from '../../migrations/1795430000001-UserPostMonths';
import { buildDataSourceOptions } from '../../src/infrastructure/database/data-source';
import { PostInserts } from '../../src/domains/posts/post-inserts.repository';
import { Factory, SignedInUser, TestProject } from '../support/factories/factories';
import { newDraft } from '../support/factories/new-post';
import { addMember } from '../support/factories/team';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * `posts_this_month` is read from a monthly counter that the statements writing posts keep, not
 * counted from the posts: it must still equal the live posts the user created this month (UTC),
 * whichever way the posts came and went.
 */
describe('Usage: posts this month, counted as the posts are written', () => {
  let t: TestApp;
  let make: Factory;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_CREATE_POST: '10000', RATE_LIMIT_OTHER: '10000' });
    make = new Factory(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  const usage = async (key: string): Promise<number> =>
    (
      (await t.http.get('/api/public/v1/usage').set('Authorization', `Bearer ${key}`).expect(200))
        .body as { posts_this_month: number }
    ).posts_this_month;

  /** What the usage means, counted from the posts themselves. */
  const counted = async (user: SignedInUser): Promise<number> =>
    (
      await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM posts
          WHERE created_by_user_id = $1 AND NOT test
            AND created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`,
        [user.id],
      )
    ).rows[0].n;

  const create = (project: TestProject, key: string, body: object) =>
    t.http
      .post(`/api/public/v1/projects/${project.id}/posts`)
      .set('Authorization', `Bearer ${key}`)
      .send(body);

  it('counts each live post of creates sent at once, for its own user; test posts and refused ones not', async () => {
    const a = await make.owner('Counted at once');
    const testKey = await make.apiKey(a.owner, { mode: 'test' });
    const member = await make.admin('Member');
    await addMember(t, a.owner, a.project, member, 'editor');
    const memberKey = await make.apiKey(member);
    const requests = [
      ...Array.from({ length: 12 }, (_, i) => ({ key: a.key, body: { text: `a ${i}` } })),
      ...Array.from({ length: 6 }, (_, i) => ({ key: testKey, body: { text: `test ${i}` } })),
      ...Array.from({ length: 8 }, (_, i) => ({ key: memberKey, body: { text: `m ${i}` } })),
      ...Array.from({ length: 4 }, (_, i) => ({
        key: a.key,
        body: { text: `refused ${i}`, targets: [{ channel_ref: 'telegram:1:-1009999' }] },
      })),
    ];
    const answers = await Promise.all(
      requests.map(({ key, body }) => create(a.project, key, body)),
    );
    expect(answers.map((res) => res.status)).toEqual([
      ...Array<number>(26).fill(201),
      ...Array<number>(4).fill(400),
    ]);
    expect(await usage(a.key)).toBe(12);
    expect(await usage(testKey)).toBe(12);
    expect(await usage(memberKey)).toBe(8);
    expect(await counted(a.owner)).toBe(12);
    expect(await counted(member)).toBe(8);
  });

  it('counts once each of the posts that share one insert statement, whoever created them', async () => {
    const a = await make.owner('One statement');
    const b = await make.owner('Another in it');
    const posts = t.app.get(PostInserts);
    // The first goes at once, alone; the others wait for it and then go together.
    const inserted = await Promise.all([
      posts.insertPost(newDraft(a.project, a.owner, 'alone')),
      posts.insertPost(newDraft(a.project, a.owner, 'together 1')),
      posts.insertPost(newDraft(b.project, b.owner, 'together 2')),
      posts.insertPost(newDraft(a.project, a.owner, 'together 3')),
      posts.insertPost({
        ...newDraft(b.project, b.owner, 'test'),
        scope: { projectId: b.project.id, test: true },
      }),
    ]);
    const together = inserted.slice(1).map((post) => String(post?.created_at));
    expect(new Set(together).size).toBe(1);
    expect(await usage(a.key)).toBe(3);
    expect(await usage(b.key)).toBe(1);
  });

  it('takes a deleted post back from the month it was created in', async () => {
    const a = await make.owner('Deleting');
    const testKey = await make.apiKey(a.owner, { mode: 'test' });
    const ids: number[] = [];
    for (const text of ['kept', 'deleted', 'last month'])
      ids.push(((await create(a.project, a.key, { text }).expect(201)).body as { id: number }).id);
    const testPost = (
      (await create(a.project, testKey, { text: 'test' }).expect(201)).body as {
        id: number;
      }
    ).id;
    expect(await usage(a.key)).toBe(3);

    const remove = (key: string, id: number) =>
      t.http
        .delete(`/api/public/v1/projects/${a.project.id}/posts/${id}`)
        .set('Authorization', `Bearer ${key}`)
        .expect(204);
    await remove(a.key, ids[1]);
    expect(await usage(a.key)).toBe(2);
    await remove(testKey, testPost);
    expect(await usage(a.key)).toBe(2);

    await t.db.query(
      `UPDATE posts SET created_at = date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 microsecond'
        WHERE id = $1`,
      [ids[2]],
    );
    expect(await usage(a.key)).toBe(1);
    // Deleting it takes it from last month's count, not from this one's.
    await remove(a.key, ids[2]);
    expect(await usage(a.key)).toBe(1);
    expect(await counted(a.owner)).toBe(1);
  });

  it('is counted from the posts already stored when the counter is created', async () => {
    const a = await make.owner('Before the counter');
    const testKey = await make.apiKey(a.owner, { mode: 'test' });
    for (let i = 0; i < 3; i++) await create(a.project, a.key, { text: `live ${i}` }).expect(201);
    await create(a.project, testKey, { text: 'test' }).expect(201);
    const last = (
      (await create(a.project, a.key, { text: 'last month' }).expect(201)).body as {
        id: number;
      }
    ).id;
    await t.db.query(
      `UPDATE posts SET created_at = created_at - interval '1 month' - interval '1 day' WHERE id = $1`,
      [last],
    );
    expect(await usage(a.key)).toBe(3);

    // The counter's migration, undone and applied again over the posts now stored.
    const source = new DataSource(buildDataSourceOptions(t.config.databaseUrl));
    await source.initialize();
    try {
      const runner = source.createQueryRunner();
      const migration = new UserPostMonths1795430000001();
      await runner.startTransaction();
      await migration.down(runner);
      await runner.commitTransaction();
      await runner.startTransaction();
      await migration.up(runner);
      await runner.commitTransaction();
      await runner.release();
    } finally {
      await source.destroy();
    }
    expect(await usage(a.key)).toBe(3);
    expect(await usage(testKey)).toBe(3);
    await create(a.project, a.key, { text: 'after' }).expect(201);
    expect(await usage(a.key)).toBe(4);
  });
});

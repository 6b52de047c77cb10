import { AppError } from '../../src/http/errors/error-codes';
import { AccountsService } from '../../src/domains/accounts/accounts.service';
import { PostsRepository } from '../../src/domains/posts/posts.repository';
import type { PostScope } from '../../src/domains/posts/post-rows';
import { TemplatesService } from '../../src/domains/templates/templates.service';
import type { SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { startWithTelegram, type TelegramWorld } from '../support/factories/telegram-world';

/** The error code a call was refused with; fails the test when it answered instead. */
async function refusedWith(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    (answer) => {
      throw new Error(`answered ${JSON.stringify(answer)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return (error as AppError).code;
}

/**
 * Below the guards: each repository method that reads or changes a project's rows takes the
 * project, so a call naming another project touches nothing of this one even with no guard in
 * front of it (docs/architecture.md#a-public-request). PermissionGuard keeps these calls from
 * happening over HTTP; the test/access/permission-matrix-*.e2e-spec.ts suites cover that side.
 */
describe('Tenant scoping in the repositories', () => {
  let world: TelegramWorld;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;
  let account: { id: number };
  let channel: TestChannel;
  let other: TestProject;

  beforeAll(async () => {
    world = await startWithTelegram();
    ({
      owner,
      project,
      key,
      account,
      channels: [channel],
    } = await world.make.ownerWithChannels('Scoped'));
    ({ project: other } = await world.make.owner('Another project'));
  });
  afterAll(() => world?.close());

  const count = async (sql: string, values: unknown[]): Promise<number> =>
    Number((await world.t.db.query<{ n: string }>(sql, values)).rows[0].n);

  describe('AccountsService', () => {
    it("refuses another project's account as not found, and leaves it as it was", async () => {
      const accounts = world.t.app.get(AccountsService);
      const before = await world.t.db.query('SELECT * FROM accounts WHERE id = $1', [account.id]);

      expect(await refusedWith(accounts.remove(other.id, account.id))).toBe('account_not_found');
      expect(
        await refusedWith(accounts.updateCredentials(other.id, account.id, { bot_token: 'x' })),
      ).toBe('account_not_found');
      expect(await refusedWith(accounts.addChannel(other.id, account.id, { chat: '-1' }))).toBe(
        'account_not_found',
      );

      const after = await world.t.db.query('SELECT * FROM accounts WHERE id = $1', [account.id]);
      expect(after.rows).toEqual(before.rows);
      expect(
        await count('SELECT count(*) AS n FROM channels WHERE account_id = $1', [account.id]),
      ).toBe(1);
    });
  });

  describe('TemplatesService', () => {
    it("refuses another project's template as not found, and leaves it as it was", async () => {
      const created = await world.t.http
        .post('/api/posts/templates')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, name: 'Weekly', text: 'Hello' })
        .expect(201);
      const id = (created.body as { id: number }).id;
      const templates = world.t.app.get(TemplatesService);

      expect(await refusedWith(templates.update(other.id, id, { name: 'Taken' }))).toBe(
        'template_not_found',
      );
      expect(await refusedWith(templates.remove(other.id, id))).toBe('template_not_found');

      expect(await templates.get(project.id, id)).toMatchObject({ name: 'Weekly', text: 'Hello' });
    });
  });

  describe('PostsRepository', () => {
    it("changes and reads nothing of a post through another project's or mode's scope", async () => {
      const media = await world.make.media(project, key, 'sample.png');
      const created = await world.t.http
        .post(`/api/public/v1/projects/${project.id}/posts`)
        .set('Authorization', `Bearer ${key}`)
        .send({ text: 'Mine', targets: [{ channel_ref: channel.id }], media_ids: [media] })
        .expect(201);
      const postId = (created.body as { id: number }).id;
      const posts = world.t.app.get(PostsRepository);
      const foreign: PostScope[] = [
        { projectId: other.id, test: false },
        { projectId: project.id, test: true },
      ];

      for (const scope of foreign) {
        await posts.transaction(async (m) => {
          await posts.updatePost(m, scope, postId, {
            text: 'Taken',
            status: 'draft',
            scheduledAt: undefined,
            publishAttempt: 9,
          });
          await posts.replaceTargets(m, scope, postId, []);
          await posts.replaceMedia(m, scope, postId, []);
          expect(await posts.mediaOfPost(m, scope, postId)).toEqual([]);
        });
      }

      const row = await world.t.db.query<{ text: string; publish_attempt: number }>(
        'SELECT text, publish_attempt FROM posts WHERE id = $1',
        [postId],
      );
      expect(row.rows[0]).toMatchObject({ text: 'Mine', publish_attempt: 0 });
      expect(
        await count('SELECT count(*) AS n FROM post_targets WHERE post_id = $1', [postId]),
      ).toBe(1);
      expect(await count('SELECT count(*) AS n FROM post_media WHERE post_id = $1', [postId])).toBe(
        1,
      );
      await posts.transaction(async (m) =>
        expect(
          await posts.mediaOfPost(m, { projectId: project.id, test: false }, postId),
        ).toHaveLength(1),
      );
    });
  });
});

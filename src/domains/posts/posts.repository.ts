import { Injectable } from '@nestjs/common';
import { LooksUpProjectOf } from '../../access/project-lookups';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
import type { MediaToCheck } from '../platforms/platform';
import type { PostStatus } from './post-state';
import type {
  PostRow,
  TargetRow,
  PostKey,
  ResolvedChannel,
  PostMediaRow,
  PostScope,
  PostWithDetails,
  ThreadItemRow,
} from './post-rows';

export const POST_COLUMNS = `p.id, p.project_id, p.created_by_user_id, p.text, p.status, p.scheduled_at,
  p.published_at, p.publish_attempt, p.created_at, p.updated_at, p.test, p.thread, p.split_long_text`;

const TARGET_COLUMNS = `t.id, t.post_id, t.channel_id, t.platform, t.account_id, t.chat_id, t.position,
  t.status, t.error_code, t.error_message, t.message_ids, t.messages, t.steps_done, t.published_at,
  EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.account_id AND a.removed_at IS NOT NULL)
    AS account_removed`;

/** Also the answer for a post the caller's project and mode cannot see. */
export const POST_NOT_FOUND = { code: 'post_not_found', message: 'Post not found' } as const;

@Injectable()
@LooksUpProjectOf({ resource: 'post', notFound: POST_NOT_FOUND })
export class PostsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** `scheduledAt` undefined keeps the stored schedule. */
  async updatePost(
    m: EntityManager,
    scope: PostScope,
    postId: number,
    fields: {
      text: string | null;
      status: PostStatus;
      scheduledAt: string | null | undefined;
      publishAttempt: number;
    },
  ): Promise<void> {
    await m.query(
      `UPDATE posts SET text = coalesce($2, text), status = $3,
              scheduled_at = CASE WHEN $4 THEN $5::timestamptz ELSE scheduled_at END,
              publish_attempt = $6, updated_at = now()
        WHERE id = $1 AND project_id = $7 AND test = $8`,
      [
        postId,
        fields.text,
        fields.status,
        fields.scheduledAt !== undefined,
        fields.scheduledAt ?? null,
        fields.publishAttempt,
        scope.projectId,
        scope.test,
      ],
    );
  }

  /** Only within the transaction that checked them; the post's scope is checked there. */
  async setThread(
    m: EntityManager,
    postId: number,
    thread: readonly ThreadItemRow[],
    split: boolean,
  ): Promise<void> {
    await m.query(
      `UPDATE posts SET thread = $2::jsonb, split_long_text = $3, updated_at = now() WHERE id = $1`,
      [postId, JSON.stringify(thread), split],
    );
  }

  async replaceTargets(
    m: EntityManager,
    scope: PostScope,
    postId: number,
    channels: ResolvedChannel[],
  ): Promise<void> {
    await m.query(
      `DELETE FROM post_targets t USING posts p
        WHERE t.post_id = $1 AND p.id = t.post_id AND p.project_id = $2 AND p.test = $3`,
      [postId, scope.projectId, scope.test],
    );
    if (channels.length === 0) return;
    await m.query(
      `INSERT INTO post_targets (post_id, channel_id, platform, account_id, chat_id, position)
       SELECT p.id, u.*
         FROM posts p, unnest($2::int[], $3::text[], $4::int[], $5::text[], $6::int[]) AS u
        WHERE p.id = $1 AND p.project_id = $7 AND p.test = $8`,
      [
        postId,
        channels.map((c) => c.id),
        channels.map((c) => c.platform),
        channels.map((c) => c.account_id),
        channels.map((c) => c.channel_id),
        channels.map((_, i) => i),
        scope.projectId,
        scope.test,
      ],
    );
  }

  async deletePost(
    scope: PostScope,
    postId: number,
    from: readonly PostStatus[],
  ): Promise<boolean> {
    const [, deleted] = (await this.db.query(
      `DELETE FROM posts
        WHERE project_id = $1 AND test = $4 AND id = $2 AND status = ANY($3::text[])`,
      [scope.projectId, postId, from, scope.test],
    )) as [unknown, number];
    return deleted > 0;
  }

  /**
   * Atomic; published targets stay, failed ones restart; with `keepRemoved`, targets on a removed
   * account stay pending so delivery fails them `channel_removed`. Null when the state forbids it.
   */
  async startPublication(
    m: EntityManager,
    scope: PostScope,
    postId: number,
    channels: ResolvedChannel[],
    from: readonly PostStatus[],
    keepRemoved = false,
  ): Promise<number | null> {
    const rows = (await m.query(
      `WITH p AS (
         UPDATE posts SET status = 'publishing', publish_attempt = publish_attempt + 1,
                updated_at = now()
          WHERE id = $1 AND project_id = $2 AND test = $8 AND status = ANY($3::text[])
          RETURNING id, publish_attempt),
       want AS (
         SELECT * FROM unnest($4::int[], $5::text[], $6::int[], $7::text[])
                WITH ORDINALITY AS w(channel_id, platform, account_id, chat_id, ord)),
       kept AS (
         SELECT t.id FROM post_targets t JOIN p ON t.post_id = p.id
           JOIN accounts a ON a.id = t.account_id
          WHERE $9 AND a.removed_at IS NOT NULL),
       dropped AS (
         DELETE FROM post_targets t USING p
          WHERE t.post_id = p.id AND t.status <> 'published'
            AND t.id NOT IN (SELECT id FROM kept)
            AND NOT EXISTS (SELECT 1 FROM want w
                             WHERE w.account_id = t.account_id AND w.chat_id = t.chat_id)),
       retried AS (
         UPDATE post_targets t
            SET status = 'pending', error_code = NULL, error_message = NULL, failures = 0,
                sending_since = NULL, not_before = NULL
           FROM p
          WHERE t.post_id = p.id AND t.status = 'failed'
            AND (t.id IN (SELECT id FROM kept)
                 OR EXISTS (SELECT 1 FROM want w
                             WHERE w.account_id = t.account_id AND w.chat_id = t.chat_id))),
       added AS (
         INSERT INTO post_targets (post_id, channel_id, platform, account_id, chat_id, position)
         SELECT p.id, w.channel_id, w.platform, w.account_id, w.chat_id,
                coalesce((SELECT max(position) FROM post_targets WHERE post_id = p.id), -1) + w.ord
           FROM p, want w
          WHERE NOT EXISTS (SELECT 1 FROM post_targets t
                             WHERE t.post_id = p.id AND t.account_id = w.account_id
                               AND t.chat_id = w.chat_id))
       SELECT publish_attempt FROM p`,
      [
        postId,
        scope.projectId,
        from,
        channels.map((c) => c.id),
        channels.map((c) => c.platform),
        channels.map((c) => c.account_id),
        channels.map((c) => c.channel_id),
        scope.test,
        keepRemoved,
      ],
    )) as { publish_attempt: number }[];
    return rows[0]?.publish_attempt ?? null;
  }

  async replaceMedia(
    m: EntityManager,
    scope: PostScope,
    postId: number,
    mediaIds: number[],
  ): Promise<void> {
    await m.query(
      `DELETE FROM post_media pm USING posts p
        WHERE pm.post_id = $1 AND p.id = pm.post_id AND p.project_id = $2 AND p.test = $3`,
      [postId, scope.projectId, scope.test],
    );
    if (mediaIds.length === 0) return;
    await m.query(
      `INSERT INTO post_media (post_id, media_asset_id, position)
       SELECT p.id, u.id, u.ord - 1
         FROM posts p, unnest($2::int[]) WITH ORDINALITY AS u(id, ord)
        WHERE p.id = $1 AND p.project_id = $3 AND p.test = $4`,
      [postId, mediaIds, scope.projectId, scope.test],
    );
  }

  async findPost(
    scope: PostScope,
    postId: number,
    m: EntityManager | DataSource = this.db,
    lock = false,
  ): Promise<PostRow | null> {
    const rows = (await m.query(
      `SELECT ${POST_COLUMNS} FROM posts p
        WHERE p.project_id = $1 AND p.test = $3 AND p.id = $2${lock ? ' FOR UPDATE' : ''}`,
      [scope.projectId, postId, scope.test],
    )) as PostRow[];
    return rows[0] ?? null;
  }

  async findForPublish(
    scope: PostScope,
    postId: number,
  ): Promise<(PostRow & { media_count: number }) | null> {
    const rows = (await this.db.query(
      `SELECT ${POST_COLUMNS},
              (SELECT count(*)::int FROM post_media pm WHERE pm.post_id = p.id) AS media_count
         FROM posts p WHERE p.project_id = $1 AND p.test = $3 AND p.id = $2`,
      [scope.projectId, postId, scope.test],
    )) as (PostRow & { media_count: number })[];
    return rows[0] ?? null;
  }

  /** Newest first, keyset after `after`: each page is a range of one index. */
  async list(
    scope: PostScope,
    page: { limit: number; status: PostStatus | null; after: PostKey | null },
  ): Promise<PostWithDetails[]> {
    const values: unknown[] = [scope.projectId, scope.test, page.limit];
    const where = ['p.project_id = $1', 'p.test = $2'];
    if (page.status !== null) {
      values.push(page.status);
      where.push(`p.status = $${values.length}`);
    }
    if (page.after !== null) {
      values.push(page.after.createdAt, page.after.id);
      where.push(
        `(p.created_at, p.id) < ($${values.length - 1}::timestamptz, $${values.length}::int)`,
      );
    }
    const posts = (await this.db.query(
      `SELECT ${POST_COLUMNS} FROM posts p WHERE ${where.join(' AND ')}
        ORDER BY p.created_at DESC, p.id DESC LIMIT $3`,
      values,
    )) as PostRow[];
    return this.withDetails(posts);
  }

  async findWithDetails(scope: PostScope, postId: number): Promise<PostWithDetails | null> {
    const post = await this.findPost(scope, postId);
    return post ? (await this.withDetails([post]))[0] : null;
  }

  /** The posts of `ids` still there, each with its details. */
  async findManyWithDetails(scope: PostScope, ids: number[]): Promise<PostWithDetails[]> {
    const rows = (await this.db.query(
      `SELECT ${POST_COLUMNS} FROM posts p
        WHERE p.project_id = $1 AND p.test = $3 AND p.id = ANY($2::int[])`,
      [scope.projectId, ids, scope.test],
    )) as PostRow[];
    return this.withDetails(rows);
  }

  private async withDetails(posts: PostRow[]): Promise<PostWithDetails[]> {
    if (posts.length === 0) return [];
    const ids = posts.map((p) => p.id);
    const [targets, media] = await Promise.all([
      this.db.query(
        `SELECT ${TARGET_COLUMNS} FROM post_targets t WHERE t.post_id = ANY($1::int[])
          ORDER BY t.post_id, t.position, t.id`,
        [ids],
      ) as Promise<TargetRow[]>,
      this.db.query(
        `SELECT pm.post_id, m.id, m.type, m.mime_type, m.alt_text, m.storage_path
           FROM post_media pm JOIN media_assets m ON m.id = pm.media_asset_id
          WHERE pm.post_id = ANY($1::int[])
          ORDER BY pm.post_id, pm.position`,
        [ids],
      ) as Promise<(PostMediaRow & { post_id: number })[]>,
    ]);
    return posts.map((post) => {
      const album = media
        .filter((m) => m.post_id === post.id)
        .map(({ id, type, mime_type, alt_text, storage_path }) => ({
          id,
          type,
          mime_type,
          alt_text,
          storage_path,
        }));
      return {
        ...post,
        targets: targets.filter((t) => t.post_id === post.id),
        media_ids: album.map((m) => m.id),
        media: album,
      };
    });
  }

  /** Locked until `m`'s transaction ends: no account changes before the write. */
  async findChannels(
    m: EntityManager,
    projectId: number,
    refs: { platform: string; accountId: number; channelId: string }[],
  ): Promise<ResolvedChannel[]> {
    if (refs.length === 0) return [];
    return rowsOf<ResolvedChannel>(m, PostsRepository.FIND_CHANNELS, [
      projectId,
      refs.map((r) => r.platform),
      refs.map((r) => r.accountId),
      refs.map((r) => r.channelId),
    ]);
  }

  private static readonly FIND_CHANNELS = new Statement(
    `SELECT c.id, c.platform, c.account_id, c.channel_id, a.needs_reconnect, a.limits
         FROM channels c JOIN accounts a ON a.id = c.account_id
        WHERE c.project_id = $1 AND a.removed_at IS NULL
          AND (c.platform, c.account_id, c.channel_id) IN
              (SELECT * FROM unnest($2::text[], $3::int[], $4::text[]))
          FOR SHARE OF c, a`,
  );

  async mediaOfPost(m: EntityManager, scope: PostScope, postId: number): Promise<MediaToCheck[]> {
    const rows = (await m.query(
      `SELECT ma.id, ma.type, ma.mime_type AS "mimeType", ma.filename, ma.size_bytes::float8 AS "sizeBytes"
         FROM post_media pm
         JOIN posts p ON p.id = pm.post_id AND p.project_id = $2 AND p.test = $3
         JOIN media_assets ma ON ma.id = pm.media_asset_id
        WHERE pm.post_id = $1 ORDER BY pm.position`,
      [postId, scope.projectId, scope.test],
    )) as MediaToCheck[];
    return rows;
  }

  /** Not scoped by tenant by nature: it answers access checks. */
  async projectOf(postId: number): Promise<number | null> {
    const rows = (await this.db.query(`SELECT project_id FROM posts WHERE id = $1`, [postId])) as {
      project_id: number;
    }[];
    return rows[0]?.project_id ?? null;
  }
}

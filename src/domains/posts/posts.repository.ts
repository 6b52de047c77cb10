import { Injectable } from '@nestjs/common';
import { LooksUpProjectOf } from '../../access/project-lookups';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
import { StatementBatcher } from '../../infrastructure/database/statement-batcher';
import type { DbTimestamp } from '../../infrastructure/database/timestamps';
import type { ChannelRefParts } from '../channels/channel-ref';
import type { MediaType } from '../media/media-asset.entity';
import type { MediaToCheck } from '../platforms/platform';
import type { PlatformLimits, SentMessage } from '../platforms/platform-answers';
import type { PostStatus, TargetStatus } from './post-state';

/** A post row as the queries below return it (snake_case, timestamps as the database's text). */
export interface PostRow {
  id: number;
  project_id: number;
  created_by_user_id: number | null;
  text: string;
  status: PostStatus;
  scheduled_at: DbTimestamp | null;
  published_at: DbTimestamp | null;
  publish_attempt: number;
  created_at: DbTimestamp;
  updated_at: DbTimestamp;
  test: boolean;
}

export interface TargetRow {
  id: number;
  post_id: number;
  channel_id: number | null;
  platform: string;
  account_id: number;
  chat_id: string;
  position: number;
  status: TargetStatus;
  error_code: string | null;
  error_message: string | null;
  message_ids: number[];
  messages: SentMessage[];
  steps_done: number;
  published_at: DbTimestamp | null;
}

/** Where a page of the list ends: the last post's sort key. */
export interface PostKey {
  createdAt: DbTimestamp;
  id: number;
}

/** A channel of the project that a `channel_ref` names, with its account's state. */
export interface ResolvedChannel {
  id: number;
  platform: string;
  account_id: number;
  channel_id: string;
  needs_reconnect: boolean;
  /** The account's own limits; null where its platform's apply. */
  limits: PlatformLimits | null;
}

export interface MediaRow {
  id: number;
  type: MediaType;
  filename: string;
  mime_type: string;
  size_bytes: number;
  storage_path: string;
}

/** A media asset of a post, in album order (what the post object shows of it). */
export interface PostMediaRow {
  id: number;
  type: MediaType;
  mime_type: string;
  alt_text: string | null;
  storage_path: string;
}

/**
 * Which posts a caller may reach: one project's, and of one kind, test or live
 * (docs/api-rules.md#test-mode). Every query that finds a post by id or lists posts takes it, so
 * the kinds never mix.
 */
export interface PostScope {
  projectId: number;
  test: boolean;
}

export interface PostWithDetails extends PostRow {
  targets: TargetRow[];
  media_ids: number[];
  media: PostMediaRow[];
}

/** At most this many posts in one insert statement. */
const INSERT_BATCH_MAX = 32;

const POST_COLUMNS = `p.id, p.project_id, p.created_by_user_id, p.text, p.status, p.scheduled_at,
  p.published_at, p.publish_attempt, p.created_at, p.updated_at, p.test`;

const TARGET_COLUMNS = `t.id, t.post_id, t.channel_id, t.platform, t.account_id, t.chat_id, t.position,
  t.status, t.error_code, t.error_message, t.message_ids, t.messages, t.steps_done, t.published_at`;

/** A post to insert: its targets as channel refs, its media as asset ids, both still unchecked. */
export interface NewPost {
  scope: PostScope;
  userId: number;
  text: string;
  status: PostStatus;
  scheduledAt: string | null;
  publishAttempt: number;
  refs: ChannelRefParts[];
  mediaIds: number[];
  /** No target's account may need reconnecting (a post to be published or scheduled). */
  requireConnected: boolean;
}

/** Every query of posts, scoped by project; the publication pipeline has its own. */
/** The answer for a post that does not exist or that the caller's project and mode cannot see. */
export const POST_NOT_FOUND = { code: 'post_not_found', message: 'Post not found' } as const;

@Injectable()
@LooksUpProjectOf({ resource: 'post', notFound: POST_NOT_FOUND })
export class PostsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /**
   * Inserts a post with its targets and media in one statement (atomic, one round trip), resolving
   * the targets' channel refs and checking the media ids on the way: the post is inserted only
   * when every ref is a channel of the project, all on one platform, (when `requireConnected`)
   * none of their accounts needs reconnecting, and every media id is an asset of the project. Null
   * when not: the caller finds out which rule failed with `findChannels` and the media lookup.
   * Saves post creation the round trips of those lookups
   * (docs/performance.md#post-creation-in-one-statement). In `m`'s transaction when given;
   * otherwise posts created while another insert is in flight go together in the next statement:
   * one commit, and one set of foreign-key locks on the project, user and channels they share.
   */
  insertPost(input: NewPost, m?: EntityManager): Promise<PostRow | null> {
    return m ? this.insertPosts([input], m).then(([post]) => post) : this.inserts.call(input);
  }

  // Each post is its own call: no two are the same, so any may share a batch.
  private readonly inserts = new StatementBatcher<NewPost, PostRow | null>(
    (posts) => this.insertPosts(posts, this.db),
    { maxBatch: INSERT_BATCH_MAX, key: (post) => post },
  );

  /** `insertPost` for several posts in one statement: one answer per post, in their order. */
  private async insertPosts(
    posts: NewPost[],
    m: DataSource | EntityManager,
  ): Promise<(PostRow | null)[]> {
    const targets = posts.flatMap((post, n) =>
      post.refs.map((ref, position) => ({ n: n + 1, position, ...ref })),
    );
    const media = posts.flatMap((post, n) =>
      post.mediaIds.map((id, position) => ({ n: n + 1, position, id })),
    );
    const rows = await rowsOf<PostRow & { n: number }>(m, PostsRepository.INSERT_POSTS, [
      posts.map((p) => p.scope.projectId),
      posts.map((p) => p.userId),
      posts.map((p) => p.text),
      posts.map((p) => p.status),
      posts.map((p) => p.scheduledAt),
      posts.map((p) => p.publishAttempt),
      posts.map((p) => p.requireConnected),
      posts.map((p) => p.scope.test),
      targets.map((t) => t.n),
      targets.map((t) => t.position),
      targets.map((t) => t.platform),
      targets.map((t) => t.accountId),
      targets.map((t) => t.channelId),
      media.map((x) => x.n),
      media.map((x) => x.position),
      media.map((x) => x.id),
    ]);
    const byN = new Map(rows.map(({ n, ...post }) => [n, post]));
    return posts.map((_, n) => byN.get(n + 1) ?? null);
  }

  /**
   * Post `n` (1-based, the order of the arrays) is inserted only when its own checks pass; the
   * others of the statement do not depend on it. Its id is drawn first so that its targets and
   * media, and the answer, can name it.
   */
  private static readonly INSERT_POSTS = new Statement(
    `WITH input AS (
         SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::timestamptz[],
                              $6::int[], $7::boolean[], $8::boolean[])
                WITH ORDINALITY AS i(project_id, user_id, text, status, scheduled_at,
                                     publish_attempt, require_connected, test, n)),
       want AS (
         SELECT * FROM unnest($9::int[], $10::int[], $11::text[], $12::int[], $13::text[])
                AS w(n, position, platform, account_id, channel_id)),
       ch AS (
         SELECT w.n, w.position, c.id, c.platform, c.account_id, c.channel_id, a.needs_reconnect
           FROM want w
           JOIN input i ON i.n = w.n
           JOIN channels c ON c.project_id = i.project_id AND c.platform = w.platform
                          AND c.account_id = w.account_id AND c.channel_id = w.channel_id
           JOIN accounts a ON a.id = c.account_id),
       asked AS (
         SELECT * FROM unnest($14::int[], $15::int[], $16::int[]) AS u(n, position, id)),
       media AS (
         SELECT u.n, u.position, u.id
           FROM asked u
           JOIN input i ON i.n = u.n
           JOIN media_assets ma ON ma.id = u.id AND ma.project_id = i.project_id),
       ok AS (
         SELECT i.n
           FROM input i
          WHERE (SELECT count(*) FROM ch WHERE ch.n = i.n) = (SELECT count(*) FROM want w WHERE w.n = i.n)
            AND (SELECT count(DISTINCT platform) FROM ch WHERE ch.n = i.n) <= 1
            AND NOT (i.require_connected AND EXISTS (SELECT 1 FROM ch WHERE ch.n = i.n AND ch.needs_reconnect))
            AND (SELECT count(*) FROM media WHERE media.n = i.n) = (SELECT count(*) FROM asked u WHERE u.n = i.n)),
       ids AS MATERIALIZED (
         SELECT ok.n, nextval('posts_id_seq')::int AS id FROM ok),
       p AS (
         INSERT INTO posts (id, project_id, created_by_user_id, text, status, scheduled_at, publish_attempt, test)
         SELECT ids.id, i.project_id, i.user_id, i.text, i.status, i.scheduled_at, i.publish_attempt, i.test
           FROM ids JOIN input i ON i.n = ids.n
         RETURNING ${POST_COLUMNS.replace(/p\./g, '')}),
       t AS (
         INSERT INTO post_targets (post_id, channel_id, platform, account_id, chat_id, position)
         SELECT ids.id, ch.id, ch.platform, ch.account_id, ch.channel_id, ch.position
           FROM ids JOIN ch ON ch.n = ids.n),
       m AS (
         INSERT INTO post_media (post_id, media_asset_id, position)
         SELECT ids.id, media.id, media.position FROM ids JOIN media ON media.n = ids.n)
       SELECT ids.n::int AS n, p.* FROM p JOIN ids ON ids.id = p.id`,
  );

  /** The application API's update: `scheduledAt` undefined keeps the stored schedule. */
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

  /** Deletes the post if its status is one of `from`; false when it was not. */
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
   * POST publish in one atomic statement: the post moves to `publishing` with a new attempt, only
   * from `draft`, `scheduled` or `failed`; the body's channels replace its targets, except that
   * targets already published stay (what was sent stays sent) and failed ones in the body start
   * over where they stopped. Every part reads the same snapshot, so the three target statements
   * touch disjoint rows. Returns the new attempt, or null when the state did not allow it.
   */
  async startPublication(
    m: EntityManager,
    scope: PostScope,
    postId: number,
    channels: ResolvedChannel[],
    from: readonly PostStatus[],
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
       dropped AS (
         DELETE FROM post_targets t USING p
          WHERE t.post_id = p.id AND t.status <> 'published'
            AND NOT EXISTS (SELECT 1 FROM want w
                             WHERE w.account_id = t.account_id AND w.chat_id = t.chat_id)),
       retried AS (
         UPDATE post_targets t
            SET status = 'pending', error_code = NULL, error_message = NULL, failures = 0,
                sending_since = NULL, not_before = NULL
           FROM p
          WHERE t.post_id = p.id AND t.status = 'failed'
            AND EXISTS (SELECT 1 FROM want w
                         WHERE w.account_id = t.account_id AND w.chat_id = t.chat_id)),
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

  /** The post in this scope, locked for the transaction when `lock` is given. */
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

  /** The post in this scope with the size of its media_files, for POST publish. */
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

  /**
   * One page, newest first (created_at desc, then id desc), with targets and media. `after`
   * is the last post of the previous page: a keyset, so a page never shifts when posts are added.
   * Only the conditions asked for are written, so each page is a range of one index in its order
   * (with a status, the index that leads with project, kind and status) and reads only its rows,
   * whatever the project's history and however few posts have the status.
   */
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

  /**
   * The project's channels among these (platform, account, chat) triples, with whether their
   * account needs reconnecting, locked until `m`'s transaction ends: no account can be deleted or
   * change its `needs_reconnect` between these checks and the write they allow.
   */
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
        WHERE c.project_id = $1
          AND (c.platform, c.account_id, c.channel_id) IN
              (SELECT * FROM unnest($2::text[], $3::int[], $4::text[]))
          FOR SHARE OF c, a`,
  );

  /** The post's media, in album order, as its platform's limits see them. */
  async mediaOfPost(m: EntityManager, scope: PostScope, postId: number): Promise<MediaToCheck[]> {
    const rows = (await m.query(
      `SELECT ma.id, ma.type, ma.filename, ma.size_bytes::float8 AS "sizeBytes"
         FROM post_media pm
         JOIN posts p ON p.id = pm.post_id AND p.project_id = $2 AND p.test = $3
         JOIN media_assets ma ON ma.id = pm.media_asset_id
        WHERE pm.post_id = $1 ORDER BY pm.position`,
      [postId, scope.projectId, scope.test],
    )) as MediaToCheck[];
    return rows;
  }

  /** The project a post belongs to, for access checks: not scoped by tenant by nature. */
  async projectOf(postId: number): Promise<number | null> {
    const rows = (await this.db.query(`SELECT project_id FROM posts WHERE id = $1`, [postId])) as {
      project_id: number;
    }[];
    return rows[0]?.project_id ?? null;
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
import { StatementBatcher } from '../../infrastructure/database/statement-batcher';
import type { NewPost, PostRow } from './post-rows';
import { POST_COLUMNS } from './posts.repository';

const INSERT_BATCH_MAX = 32;

@Injectable()
export class PostInserts {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Atomic, one round trip, checking refs and media on the way (channels and accounts share-locked); null when a check fails. */
  insertPost(input: NewPost, m?: EntityManager): Promise<PostRow | null> {
    return m ? this.insertPosts([input], m).then(([post]) => post) : this.inserts.call(input);
  }

  private readonly inserts = new StatementBatcher<NewPost, PostRow | null>(
    (posts) => this.insertPosts(posts, this.db),
    { maxBatch: INSERT_BATCH_MAX, key: (post) => post },
  );

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
    const rows = await rowsOf<PostRow & { n: number }>(m, PostInserts.INSERT_POSTS, [
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

  /** Post `n` goes in only when its own checks pass; its id is drawn first so its rows name it. */
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
           JOIN accounts a ON a.id = c.account_id AND a.removed_at IS NULL
            FOR SHARE OF c, a),
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
}

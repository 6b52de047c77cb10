import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
import { StatementBatcher } from '../../infrastructure/database/statement-batcher';
import type { MediaType } from '../media/media-asset.entity';
import type { PlatformLimits, SentMessage } from '../platforms/platform-answers';
import { Metrics } from '../../infrastructure/metrics/metrics.service';
import { postEventOutbox } from '../webhooks/webhook-outbox';
import { flagNeedsReconnect } from '../accounts/account-flags';
import { PROCESSABLE_FROM, type PostStatus } from '../posts/post-state';

export interface ClaimedPost {
  id: number;
  text: string;
  /** Its delivery is simulated. */
  test: boolean;
  /** Targets still `pending`, in order. */
  targets: DeliveryTarget[];
  /** In album order. */
  media: DeliveryMedia[];
  /** The post's `thread`, each item's media in its order. */
  thread: { text: string; media: DeliveryMedia[] }[];
  split_long_text: boolean;
}

export interface DeliveryTarget {
  id: number;
  platform: string;
  account_id: number;
  chat_id: string;
  /** Null without one, or once the channel is removed. */
  channel_username: string | null;
  channel_url: string | null;
  /** The platform last said the channel does not exist. */
  channel_missing: boolean;
  /** The target's TID: every try of one of its sends carries a key made from it. */
  delivery_key: string;
  /** Sends of the current step not delivered so far (the next try may follow one that arrived). */
  failures: number;
  steps_done: number;
  /** Set when a previous send's outcome was never recorded. */
  sending_since: string | null;
  /** By the database's clock; null when none is recorded. */
  sending_for_ms: number | null;
  /** Epoch ms of the chat pacing slot this target holds, or null. */
  not_before_ms: number | null;
  needs_reconnect: boolean;
  /** Its account was removed: nothing can be sent, and its secrets are gone (null). */
  account_removed: boolean;
  credentials_encrypted: string | null;
  /** When the account's access token expires (epoch ms); null when it does not. */
  token_expires_ms: number | null;
  token_renewable: boolean;
  /** The claim marked its send in flight. */
  marked: boolean;
  /** Recorded so far, in order; a reply's parent is the last of them. */
  messages: SentMessage[];
  limits: PlatformLimits | null;
  send_progress: { step: number; value: string } | null;
}

export interface DeliveryMedia {
  type: MediaType;
  mime_type: string;
  filename: string;
  alt_text: string | null;
  storage_path: string;
  size_bytes: number;
}

/** Enough rows for a deep queue's jobs at one moment, few enough to keep a statement short. */
const BATCH_MAX = 50;

/** Every write is guarded by the state it expects; the worker acts for no caller (no project). */
@Injectable()
export class PublicationRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly metrics: Metrics,
  ) {}

  // Every job's state guard: the current attempt only, else null; loads pending targets and media,
  // may mark the first send in flight (docs/performance.md#the-claim-marks-the-first-send).
  claim(
    postId: number,
    attempt: number,
    markAccounts: readonly number[] = [],
  ): Promise<ClaimedPost | null> {
    return this.claims.call({ postId, attempt, markAccounts });
  }

  private readonly claims = new StatementBatcher<
    { postId: number; attempt: number; markAccounts: readonly number[] },
    ClaimedPost | null
  >(
    async (jobs) => {
      const rows = await rowsOf<ClaimedPost & { attempt: number }>(
        this.db,
        PublicationRepository.CLAIM,
        [
          jobs.map((j) => j.postId),
          jobs.map((j) => j.attempt),
          PROCESSABLE_FROM,
          [...new Set(jobs.flatMap((j) => j.markAccounts))],
        ],
      );
      return jobs.map(({ postId, attempt }) => {
        const row = rows.find((r) => r.id === postId && r.attempt === attempt);
        if (!row) return null;
        const { id, text, test, targets, media, thread, split_long_text } = row;
        return { id, text, test, targets, media, thread, split_long_text };
      });
    },
    { maxBatch: BATCH_MAX, key: (job) => job.postId },
  );

  private static readonly CLAIM = new Statement(
    `WITH claimed AS (
         UPDATE posts p SET status = 'publishing', updated_at = now(), claimed_attempt = j.attempt
           FROM unnest($1::int[], $2::int[]) AS j(id, attempt)
          WHERE p.id = j.id AND p.publish_attempt = j.attempt AND p.status = ANY($3::text[])
          RETURNING p.id, p.publish_attempt AS attempt, p.text, p.test, p.thread,
                    p.split_long_text),
       first AS (
         SELECT DISTINCT ON (t.post_id) t.id, t.account_id, t.sending_since, t.not_before, c.test
           FROM claimed c JOIN post_targets t ON t.post_id = c.id AND t.status = 'pending'
          ORDER BY t.post_id, t.position, t.id),
       marked AS (
         UPDATE post_targets t SET sending_since = now()
           FROM first f JOIN accounts a ON a.id = f.account_id
          WHERE t.id = f.id AND NOT f.test AND f.sending_since IS NULL AND f.not_before IS NULL
            AND NOT a.needs_reconnect AND a.removed_at IS NULL AND f.account_id = ANY($4::int[])
            AND t.status = 'pending' AND t.sending_since IS NULL
          RETURNING t.id)
       SELECT c.id, c.attempt, c.text, c.test, c.split_long_text,
              coalesce((SELECT json_agg(x ORDER BY x.position, x.id) FROM (
                 SELECT t.id, t.position, t.platform, t.account_id, t.chat_id, t.steps_done,
                        ch.username AS channel_username, ch.url AS channel_url, t.delivery_key,
                        ch.missing_since IS NOT NULL AS channel_missing,
                        t.failures,
                        t.sending_since, t.send_progress, a.needs_reconnect,
                        a.credentials_encrypted,
                        (extract(epoch FROM a.token_expires_at) * 1000)::float8
                          AS token_expires_ms, a.token_renewable,
                        a.removed_at IS NOT NULL AS account_removed,
                        (extract(epoch FROM now() - t.sending_since) * 1000)::float8
                          AS sending_for_ms,
                        (extract(epoch FROM t.not_before) * 1000)::float8 AS not_before_ms,
                        EXISTS (SELECT 1 FROM marked m WHERE m.id = t.id) AS marked,
                        t.messages, a.limits
                   FROM post_targets t JOIN accounts a ON a.id = t.account_id
                   LEFT JOIN channels ch ON ch.id = t.channel_id
                  WHERE t.post_id = c.id AND t.status = 'pending') x), '[]') AS targets,
              coalesce((SELECT json_agg(y ORDER BY y.position) FROM (
                 SELECT pm.position, m.type, m.mime_type, m.filename, m.alt_text, m.storage_path, m.size_bytes
                   FROM post_media pm JOIN media_assets m ON m.id = pm.media_asset_id
                  WHERE pm.post_id = c.id) y), '[]') AS media,
              coalesce((SELECT json_agg(json_build_object('text', it.item->>'text', 'media',
                 coalesce((SELECT json_agg(z ORDER BY z.ord) FROM (
                    SELECT i.ord, m.type, m.mime_type, m.filename, m.alt_text, m.storage_path, m.size_bytes
                      FROM jsonb_array_elements_text(coalesce(it.item->'media_ids', '[]'))
                           WITH ORDINALITY AS i(id, ord)
                      JOIN media_assets m ON m.id = i.id::int) z), '[]')) ORDER BY it.ord)
                 FROM jsonb_array_elements(c.thread) WITH ORDINALITY AS it(item, ord)), '[]') AS thread
         FROM claimed c`,
  );

  /** False when another run holds the target or moved it on; concurrent calls batch. */
  startSend(targetId: number, step: number): Promise<boolean> {
    return this.starts.call({ targetId, step });
  }

  private readonly starts = new StatementBatcher<{ targetId: number; step: number }, boolean>(
    async (sends) => {
      const rows = await rowsOf<{ id: number }>(this.db, PublicationRepository.START_SEND, [
        sends.map((s) => s.targetId),
        sends.map((s) => s.step),
      ]);
      const started = new Set(rows.map((r) => r.id));
      return sends.map((s) => started.has(s.targetId));
    },
    { maxBatch: BATCH_MAX, key: (send) => send.targetId },
  );

  private static readonly START_SEND = new Statement(
    `UPDATE post_targets t SET sending_since = now(), not_before = NULL
       FROM unnest($1::int[], $2::int[]) AS s(id, step)
      WHERE t.id = s.id AND t.status = 'pending' AND t.steps_done = s.step
        AND t.sending_since IS NULL
      RETURNING t.id`,
  );

  /** True when every target, hence the post (with its webhook event), is published by this. */
  stepSent(
    target: { id: number; postId: number; attempt: number },
    sent: { messages: SentMessage[]; listedIds: number[] },
    last: boolean,
  ): Promise<boolean> {
    return this.steps.call({ ...target, ...sent, last });
  }

  private readonly steps = new StatementBatcher<
    {
      id: number;
      postId: number;
      attempt: number;
      messages: SentMessage[];
      listedIds: number[];
      last: boolean;
    },
    boolean
  >(
    async (steps) => {
      const rows = await rowsOf<{ id: number }>(this.db, PublicationRepository.STEP_SENT, [
        steps.map((s) => s.id),
        steps.map((s) => JSON.stringify(s.listedIds)),
        steps.map((s) => s.last),
        steps.map((s) => s.postId),
        steps.map((s) => s.attempt),
        steps.map((s) => JSON.stringify(s.messages)),
      ]);
      const published = new Set(rows.map((r) => r.id));
      return steps.map((s) => published.has(s.postId));
    },
    // One post per batch: "every other target published" reads the post's other rows.
    { maxBatch: BATCH_MAX, key: (step) => step.postId },
  );

  private static readonly STEP_SENT = new Statement(
    `WITH t AS (
         UPDATE post_targets pt
            SET steps_done = pt.steps_done + 1, message_ids = pt.message_ids || s.ids::jsonb,
                messages = pt.messages || s.messages::jsonb, sending_since = NULL, failures = 0,
                send_progress = NULL,
                status = CASE WHEN s.last THEN 'published' ELSE pt.status END,
                published_at = CASE WHEN s.last THEN now() ELSE pt.published_at END
           FROM unnest($1::int[], $2::text[], $3::bool[], $4::int[], $5::int[], $6::text[])
                AS s(id, ids, last, post_id, attempt, messages)
          WHERE pt.id = s.id
          RETURNING pt.id, pt.post_id, pt.status, pt.published_at, s.post_id AS job_post_id,
                    s.attempt),
       changed AS (
         UPDATE posts p SET status = 'published', published_at = t.published_at, updated_at = now()
           FROM t
          WHERE p.id = t.post_id AND t.status = 'published' AND p.id = t.job_post_id
            AND p.publish_attempt = t.attempt AND p.status = 'publishing'
            AND NOT EXISTS (SELECT 1 FROM post_targets o
                             WHERE o.post_id = t.post_id AND o.id <> t.id
                               AND o.status <> 'published')
          RETURNING p.id, p.project_id, p.status),
       ${postEventOutbox('changed')}
       SELECT id FROM changed`,
  );

  async keepProgress(targetId: number, step: number, value: string): Promise<void> {
    await this.db.query(
      `UPDATE post_targets SET send_progress = jsonb_build_object('step', $2::int, 'value', $3::text)
        WHERE id = $1 AND status = 'pending' AND steps_done = $2`,
      [targetId, step, value],
    );
  }

  /** Returns the failures counted so far. */
  async sendNotDelivered(targetId: number, countFailure: boolean): Promise<number> {
    const rows = (await this.db.query(
      `UPDATE post_targets SET sending_since = NULL,
              failures = failures + CASE WHEN $2 THEN 1 ELSE 0 END
        WHERE id = $1 RETURNING failures`,
      [targetId, countFailure],
    )) as [{ failures: number }[], number];
    return rows[0][0]?.failures ?? 0;
  }

  /** Kept across runs: the target's pacing reservation. */
  async holdChatSlot(targetId: number, atMs: number): Promise<void> {
    await this.db.query(
      `UPDATE post_targets SET not_before = to_timestamp($2::float8 / 1000) WHERE id = $1`,
      [targetId, atMs],
    );
  }

  /** The platform says the target's channel does not exist, or (`missing` false) it took a send again. */
  async markChannelMissing(targetId: number, missing: boolean): Promise<void> {
    await this.db.query(
      `UPDATE channels c SET missing_since = CASE WHEN $2 THEN now() END
         FROM post_targets t
        WHERE t.id = $1 AND c.id = t.channel_id AND (c.missing_since IS NULL) = $2`,
      [targetId, missing],
    );
  }

  async failTarget(targetId: number, code: string, message: string): Promise<void> {
    const [failed] = (await this.db.query(
      `UPDATE post_targets
          SET status = 'failed', error_code = $2, error_message = $3, sending_since = NULL,
              not_before = NULL
        WHERE id = $1 AND status = 'pending' RETURNING platform`,
      [targetId, code, message],
    )) as [{ platform: string }[], number];
    // Counted where the state changes, so a target is counted once whichever path failed it.
    for (const { platform } of failed) this.metrics.publicationTarget(platform, 'failed', code);
  }

  /** Only the change from connected records a `channel.needs_reconnect` event. */
  flagNeedsReconnect(accountId: number): Promise<void> {
    return flagNeedsReconnect(this.db, accountId);
  }

  /** Once no target is pending: `published` only with targets, all delivered, else `failed`, with its event; else null. */
  async finish(postId: number, attempt: number): Promise<PostStatus | null> {
    const [row] = await rowsOf<{ status: PostStatus }>(this.db, PublicationRepository.FINISH, [
      postId,
      attempt,
    ]);
    return row?.status ?? null;
  }

  private static readonly FINISH = new Statement(
    `WITH changed AS (
       UPDATE posts p
          SET status = CASE WHEN s.delivered THEN 'published' ELSE 'failed' END,
              published_at = CASE WHEN s.delivered THEN coalesce(s.last, now()) ELSE p.published_at END,
              updated_at = now()
         FROM (SELECT count(*) > 0 AND bool_and(status = 'published') AS delivered,
                      count(*) FILTER (WHERE status = 'pending') AS pending,
                      max(published_at) AS last
                 FROM post_targets WHERE post_id = $1) s
        WHERE p.id = $1 AND p.publish_attempt = $2 AND p.status = 'publishing' AND s.pending = 0
        RETURNING p.id, p.project_id, p.status),
     ${postEventOutbox('changed')}
     SELECT status FROM changed`,
  );

  /** Safety net: every pending target fails, then the post. */
  async giveUp(postId: number, attempt: number, message: string): Promise<void> {
    const [failed] = (await this.db.query(
      `UPDATE post_targets t
          SET status = 'failed', error_code = 'delivery_failed', error_message = $3,
              sending_since = NULL, not_before = NULL
         FROM posts p
        WHERE t.post_id = p.id AND p.id = $1 AND p.publish_attempt = $2
          AND p.status = 'publishing' AND t.status = 'pending' RETURNING t.platform`,
      [postId, attempt, message],
    )) as [{ platform: string }[], number];
    for (const { platform } of failed)
      this.metrics.publicationTarget(platform, 'failed', 'delivery_failed');
    await this.finish(postId, attempt);
  }
}

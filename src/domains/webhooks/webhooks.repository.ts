import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { StatementBatcher } from '../../infrastructure/database/statement-batcher';
import type { DbTimestamp } from '../../infrastructure/database/timestamps';
import type { SubscribableEvent, WebhookEventType } from './webhook-events';
import type { AttemptOutcome } from './webhook-sender';
import { NEW_EVENT_ID } from './webhook-outbox';

export interface WebhookRow {
  id: number;
  project_id: number;
  url: string;
  events: SubscribableEvent[];
  enabled: boolean;
  disabled_reason: string | null;
  test: boolean;
  created_at: DbTimestamp;
}

/** Test webhooks are a test key's, live ones everyone else's. */
export interface WebhookScope {
  projectId: number;
  test: boolean;
}

/** Test and live together. */
export const MAX_WEBHOOKS_PER_PROJECT = 10;
/** Advisory lock that serialises webhook creation within a project. */
const CREATE_LOCK = 0x77686b73; // "whks"

export interface DeliveryRow {
  id: number;
  event_id: string;
  event_type: WebhookEventType;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: DbTimestamp;
}

export interface EventToFill {
  id: string;
  type: WebhookEventType;
  project_id: number;
  post_id: number | null;
  /** Null when the post is gone. */
  post_test: boolean | null;
}

export interface SendToEnqueue {
  id: number;
  attempts: number;
  webhook_id: number;
  due_ms: number;
}

export interface ClaimedSend {
  id: number;
  attempts: number;
  webhook_id: number;
  url: string;
  secret_encrypted: string;
  enabled: boolean;
  event_id: string;
  type: WebhookEventType;
  data: Record<string, unknown> | null;
  occurred_at: DbTimestamp;
}

/** Enough deliveries of a burst to one endpoint, few enough to keep a statement short. */
const BATCH_MAX = 50;

const WEBHOOK_COLUMNS = `id, project_id, url, events, enabled, disabled_reason, test, created_at`;

/** An attempt whose worker stopped before its outcome was written. */
export const LOST_ATTEMPT_ERROR =
  'The outcome of this attempt was lost: the worker making it stopped before recording it; the receiver may or may not have got it';

@Injectable()
export class WebhooksRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Null when the project holds the most it may; creations in one project take turns. */
  async insert(
    scope: WebhookScope,
    input: { url: string; events: SubscribableEvent[]; secretEncrypted: string },
  ): Promise<WebhookRow | null> {
    return this.db.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock($1, $2)`, [CREATE_LOCK, scope.projectId]);
      const rows = (await manager.query(
        `INSERT INTO webhooks (project_id, url, events, secret_encrypted, test)
         SELECT $1, $2, $3, $4, $5
          WHERE (SELECT count(*) FROM webhooks WHERE project_id = $1) < $6
         RETURNING ${WEBHOOK_COLUMNS}`,
        [
          scope.projectId,
          input.url,
          input.events,
          input.secretEncrypted,
          scope.test,
          MAX_WEBHOOKS_PER_PROJECT,
        ],
      )) as WebhookRow[];
      return rows[0] ?? null;
    });
  }

  async list(scope: WebhookScope): Promise<WebhookRow[]> {
    return (await this.db.query(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE project_id = $1 AND test = $2 ORDER BY id DESC`,
      [scope.projectId, scope.test],
    )) as WebhookRow[];
  }

  async exists(scope: WebhookScope, webhookId: number): Promise<boolean> {
    const rows = (await this.db.query(
      `SELECT 1 FROM webhooks WHERE project_id = $1 AND test = $2 AND id = $3`,
      [scope.projectId, scope.test, webhookId],
    )) as unknown[];
    return rows.length > 0;
  }

  /** Locks pending sends before the endpoint, as a worker does, so the two never deadlock. */
  async delete(scope: WebhookScope, webhookId: number): Promise<boolean> {
    return this.db.transaction(async (manager) => {
      await manager.query(
        `SELECT s.id FROM webhook_sends s JOIN webhooks w ON w.id = s.webhook_id
          WHERE w.project_id = $1 AND w.test = $2 AND w.id = $3 AND s.status = 'pending'
          ORDER BY s.id FOR UPDATE OF s`,
        [scope.projectId, scope.test, webhookId],
      );
      const [, deleted] = (await manager.query(
        `DELETE FROM webhooks WHERE project_id = $1 AND test = $2 AND id = $3`,
        [scope.projectId, scope.test, webhookId],
      )) as [unknown, number];
      return deleted > 0;
    });
  }

  /** Newest first, below `beforeId` when given. */
  async deliveries(
    webhookId: number,
    limit: number,
    beforeId: number | null = null,
  ): Promise<DeliveryRow[]> {
    return (await this.db.query(
      `SELECT id, event_id, event_type, attempt, status_code, error, duration_ms, created_at
         FROM webhook_deliveries
        WHERE webhook_id = $1 AND ($3::int IS NULL OR id < $3)
        ORDER BY id DESC LIMIT $2`,
      [webhookId, limit, beforeId],
    )) as DeliveryRow[];
  }

  /** Null when the endpoint is not there. */
  async insertTestEvent(
    scope: WebhookScope,
    webhookId: number,
    type: string,
  ): Promise<string | null> {
    const rows = (await this.db.query(
      `WITH w AS (SELECT id, project_id, test FROM webhooks
                   WHERE project_id = $1 AND test = $2 AND id = $3),
            e AS (INSERT INTO webhook_events (id, project_id, type, data, test)
                  SELECT ${NEW_EVENT_ID}, w.project_id, $4,
                         jsonb_build_object('project_id', w.project_id, 'webhook_id', w.id), w.test
                    FROM w RETURNING id),
            s AS (INSERT INTO webhook_sends (event_id, webhook_id) SELECT e.id, w.id FROM e, w)
       SELECT id FROM e`,
      [scope.projectId, scope.test, webhookId, type],
    )) as { id: string }[];
    return rows[0]?.id ?? null;
  }

  // The delivery pipeline's statements below act for no caller, so they name no project.

  async eventsToFill(limit: number): Promise<EventToFill[]> {
    return (await this.db.query(
      `SELECT e.id, e.type, e.project_id, e.post_id, p.test AS post_test
         FROM webhook_events e LEFT JOIN posts p ON p.id = e.post_id
        WHERE e.data IS NULL ORDER BY e.created_at LIMIT $1`,
      [limit],
    )) as EventToFill[];
  }

  async fillData(events: { id: string; data: Record<string, unknown> }[]): Promise<void> {
    if (events.length === 0) return;
    await this.db.query(
      `UPDATE webhook_events e SET data = f.data
         FROM unnest($1::text[], $2::jsonb[]) AS f(id, data)
        WHERE e.id = f.id AND e.data IS NULL`,
      [events.map((e) => e.id), events.map((e) => JSON.stringify(e.data))],
    );
  }

  async sendsToEnqueue(afterId: number, limit: number): Promise<SendToEnqueue[]> {
    return (await this.db.query(
      `SELECT s.id, s.attempts, s.webhook_id,
              (extract(epoch FROM s.next_attempt_at) * 1000)::float8 AS due_ms
         FROM webhook_sends s JOIN webhook_events e ON e.id = s.event_id
        WHERE s.status = 'pending' AND s.queued_attempt IS DISTINCT FROM s.attempts
          AND e.data IS NOT NULL AND s.id > $1
        ORDER BY s.id LIMIT $2`,
      [afterId, limit],
    )) as SendToEnqueue[];
  }

  async markQueued(sends: { id: number; attempt: number }[]): Promise<void> {
    if (sends.length === 0) return;
    await this.db.query(
      `UPDATE webhook_sends s SET queued_attempt = q.attempt
         FROM unnest($1::int[], $2::int[]) AS q(id, attempt)
        WHERE s.id = q.id AND s.attempts = q.attempt`,
      [sends.map((send) => send.id), sends.map((send) => send.attempt)],
    );
  }

  /** Their job may be gone with Redis; the caller checks the queue before enqueueing them again. */
  async overdueSends(graceMs: number, limit: number): Promise<SendToEnqueue[]> {
    return (await this.db.query(
      `SELECT id, attempts, webhook_id,
              (extract(epoch FROM next_attempt_at) * 1000)::float8 AS due_ms
         FROM webhook_sends
        WHERE status = 'pending' AND queued_attempt = attempts
          AND next_attempt_at < now() - make_interval(secs => $1::float8 / 1000)
          AND (locked_until IS NULL OR locked_until < now())
        ORDER BY id LIMIT $2`,
      [graceMs, limit],
    )) as SendToEnqueue[];
  }

  /** Every delivery's state guard (null when it lost); a lapsed claim is logged as lost. */
  claim(sendId: number, attempt: number, claimMs: number): Promise<ClaimedSend | null> {
    return this.claims.call({ sendId, attempt, claimMs });
  }

  private readonly claims = new StatementBatcher<
    { sendId: number; attempt: number; claimMs: number },
    ClaimedSend | null
  >(
    async (items) => {
      const rows = (await this.db.query(
        `WITH wanted AS (
           SELECT * FROM unnest($1::int[], $2::int[], $3::float8[]) AS w(id, attempts, claim_ms)),
         prior AS (
           SELECT s.id, s.attempts, s.locked_until IS NOT NULL AS lost, w.claim_ms
             FROM webhook_sends s JOIN wanted w ON w.id = s.id AND w.attempts = s.attempts
            WHERE s.status = 'pending' AND (s.locked_until IS NULL OR s.locked_until < now())
            ORDER BY s.id
              FOR UPDATE OF s),
         c AS (
           UPDATE webhook_sends s
              SET locked_until = now() + make_interval(secs => p.claim_ms / 1000),
                  attempts = s.attempts + CASE WHEN p.lost THEN 1 ELSE 0 END
             FROM prior p
            WHERE s.id = p.id
            RETURNING s.id, s.attempts, s.event_id, s.webhook_id, p.lost),
         lost AS (
           INSERT INTO webhook_deliveries
                  (webhook_id, event_id, event_type, attempt, status_code, error, duration_ms)
           SELECT c.webhook_id, c.event_id, e.type, c.attempts, NULL, $4, 0
             FROM c JOIN webhook_events e ON e.id = c.event_id
            WHERE c.lost)
         SELECT c.id, c.attempts, c.webhook_id, w.url, w.secret_encrypted, w.enabled,
                e.id AS event_id, e.type, e.data, e.created_at AS occurred_at
           FROM c JOIN webhooks w ON w.id = c.webhook_id JOIN webhook_events e ON e.id = c.event_id`,
        [
          items.map((item) => item.sendId),
          items.map((item) => item.attempt),
          items.map((item) => item.claimMs),
          LOST_ATTEMPT_ERROR,
        ],
      )) as ClaimedSend[];
      return items.map((item) => rows.find((row) => row.id === item.sendId) ?? null);
    },
    { maxBatch: BATCH_MAX, key: (item) => item.sendId },
  );

  async cancel(sendId: number): Promise<void> {
    await this.db.query(
      `UPDATE webhook_sends SET status = 'cancelled', locked_until = NULL WHERE id = $1`,
      [sendId],
    );
  }

  /** Delivered (batched), retried at `retryInMs`, or (null) failed, up to `disableAfter`. */
  async recordAttempt(
    send: ClaimedSend,
    outcome: AttemptOutcome,
    retryInMs: number | null,
    disableAfter: number,
    disabledReason: string,
  ): Promise<void> {
    if (outcome.ok) return this.delivered.call({ send, outcome });
    const status = retryInMs === null ? 'failed' : 'pending';
    await this.db.query(
      `WITH logged AS (
         INSERT INTO webhook_deliveries
                (webhook_id, event_id, event_type, attempt, status_code, error, duration_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7)),
       moved AS (
         UPDATE webhook_sends
            SET status = $8, attempts = attempts + 1, locked_until = NULL,
                next_attempt_at = now() + make_interval(secs => coalesce($9::float8, 0) / 1000)
          WHERE id = $10 AND attempts = $11
          RETURNING id)
       UPDATE webhooks w
          SET failed_events = CASE WHEN $8 = 'succeeded' THEN 0 ELSE w.failed_events + 1 END,
              enabled = CASE WHEN $8 = 'failed' AND w.failed_events + 1 >= $12 THEN false
                             ELSE w.enabled END,
              disabled_reason = CASE WHEN $8 = 'failed' AND w.failed_events + 1 >= $12
                                          AND w.enabled THEN $13 ELSE w.disabled_reason END
         FROM moved
        WHERE w.id = $1 AND $8 IN ('succeeded', 'failed')`,
      [
        send.webhook_id,
        send.event_id,
        send.type,
        send.attempts + 1,
        outcome.statusCode,
        outcome.error,
        outcome.durationMs,
        status,
        retryInMs,
        send.id,
        send.attempts,
        disableAfter,
        disabledReason,
      ],
    );
  }

  private readonly delivered = new StatementBatcher<
    { send: ClaimedSend; outcome: AttemptOutcome },
    void
  >(
    async (items) => {
      await this.db.query(
        `WITH d AS (
           SELECT * FROM unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::text[],
                                $6::int[], $7::int[])
                      AS d(id, attempts, webhook_id, event_id, event_type, status_code, duration_ms)),
         logged AS (
           INSERT INTO webhook_deliveries
                  (webhook_id, event_id, event_type, attempt, status_code, error, duration_ms)
           SELECT webhook_id, event_id, event_type, attempts + 1, status_code, NULL, duration_ms
             FROM d),
         moved AS (
           UPDATE webhook_sends s
              SET status = 'succeeded', attempts = s.attempts + 1, locked_until = NULL,
                  next_attempt_at = now()
             FROM d
            WHERE s.id = d.id AND s.attempts = d.attempts
            RETURNING s.webhook_id)
         UPDATE webhooks w SET failed_events = 0
          WHERE w.id IN (SELECT webhook_id FROM moved) AND w.failed_events <> 0`,
        [
          items.map(({ send }) => send.id),
          items.map(({ send }) => send.attempts),
          items.map(({ send }) => send.webhook_id),
          items.map(({ send }) => send.event_id),
          items.map(({ send }) => send.type),
          items.map(({ outcome }) => outcome.statusCode),
          items.map(({ outcome }) => outcome.durationMs),
        ],
      );
      return items.map(() => undefined);
    },
    { maxBatch: BATCH_MAX, key: (item) => item.send.id },
  );

  async purge(retentionDays: number): Promise<void> {
    await this.db.query(
      `DELETE FROM webhook_deliveries
        WHERE created_at < now() - make_interval(days => $1)`,
      [retentionDays],
    );
    await this.db.query(
      `DELETE FROM webhook_events e
        WHERE e.created_at < now() - make_interval(days => $1)
          AND NOT EXISTS (SELECT 1 FROM webhook_sends s
                           WHERE s.event_id = e.id AND s.status = 'pending')`,
      [retentionDays],
    );
  }
}

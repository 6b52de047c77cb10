import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { PostStatus } from '../posts/post-state';

export interface SweepCandidate {
  id: number;
  status: PostStatus;
  publish_attempt: number;
  fire_at_ms: number | null;
}

/** Where a read of scheduled posts in due order goes on from. */
export interface ScheduledKey {
  dueKey: string;
  id: number;
}

export interface ScheduledCandidate extends SweepCandidate {
  /** Its `scheduled_at` exactly, to go on from. */
  due_key: string;
}

/** What the sweep reads: posts whose job may be lost, and scheduled posts coming due. */
@Injectable()
export class SweepRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Queued and publishing posts whose job may be lost: untouched for `graceMs`, after `afterId`. */
  async sweepCandidates(
    afterId: number,
    graceMs: number,
    limit: number,
  ): Promise<SweepCandidate[]> {
    return (await this.db.query(
      `SELECT id, status, publish_attempt, NULL::float8 AS fire_at_ms
         FROM posts
        WHERE status IN ('queued', 'publishing') AND id > $1
          AND updated_at < now() - make_interval(secs => $2::float8 / 1000)
        ORDER BY id LIMIT $3`,
      [afterId, graceMs, limit],
    )) as SweepCandidate[];
  }

  /** Scheduled posts due in [fromMs, toMs), in due order after `after`, from their index. */
  async scheduledWithin(
    fromMs: number | null,
    toMs: number,
    after: ScheduledKey | null,
    limit: number,
  ): Promise<ScheduledCandidate[]> {
    return (await this.db.query(
      `SELECT id, status, publish_attempt,
              (extract(epoch FROM scheduled_at) * 1000)::float8 AS fire_at_ms,
              scheduled_at::text AS due_key
         FROM posts
        WHERE status = 'scheduled'
          AND scheduled_at < to_timestamp($2::float8 / 1000)
          AND ($1::float8 IS NULL OR scheduled_at >= to_timestamp($1::float8 / 1000))
          AND ($3::timestamptz IS NULL OR (scheduled_at, id) > ($3::timestamptz, $4::int))
        ORDER BY scheduled_at, id LIMIT $5`,
      [fromMs, toMs, after?.dueKey ?? null, after?.id ?? 0, limit],
    )) as ScheduledCandidate[];
  }
}

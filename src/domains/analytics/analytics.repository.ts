import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
import type { ChannelRow } from '../channels/channels.repository';
import { USAGE_SQL } from './usage-query';

const USAGE = new Statement(USAGE_SQL);

export interface ChannelStatsRow extends ChannelRow {
  scheduled: number;
  published: number;
  failed: number;
}

/** The key user's usage (docs/api-rules.md#usage), in one round trip (usage-query.ts). */
export interface Usage {
  posts_this_month: number;
  projects_count: number;
  api_keys_count: number;
}

@Injectable()
export class AnalyticsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Each channel of the project with its live posts counted by state. */
  async channelStats(projectId: number): Promise<ChannelStatsRow[]> {
    return (await this.db.query(
      `SELECT c.id, c.account_id, c.platform, c.channel_id, c.title, c.username, c.url,
              c.missing_since, a.needs_reconnect, a.limits, a.reconnect_by,
              count(p.id) FILTER (WHERE p.status = 'scheduled')::int AS scheduled,
              count(p.id) FILTER (WHERE t.status = 'published')::int AS published,
              count(p.id) FILTER (WHERE t.status = 'failed')::int AS failed
         FROM channels c
         JOIN accounts a ON a.id = c.account_id
         LEFT JOIN post_targets t ON t.channel_id = c.id
         LEFT JOIN posts p ON p.id = t.post_id AND p.project_id = c.project_id AND NOT p.test
        WHERE c.project_id = $1 AND a.removed_at IS NULL
        GROUP BY c.id, a.needs_reconnect, a.limits, a.reconnect_by
        ORDER BY c.account_id, c.id`,
      [projectId],
    )) as ChannelStatsRow[];
  }

  /** The user's usage across their projects and keys: scoped by user, not by project. */
  async usageOf(userId: number): Promise<Usage> {
    const [row] = await rowsOf<Usage>(this.db, USAGE, [userId]);
    return row;
  }
}

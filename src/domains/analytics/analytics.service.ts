import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ChannelRow } from '../channels/channels.repository';
import { toChannelListItem } from '../channels/channels.service';
import { PlatformRegistry } from '../platforms/platform-registry';
import { ChannelStatsListDto } from './dto/channel-stats.dto';

interface ChannelStatsRow extends ChannelRow {
  scheduled: number;
  published: number;
  failed: number;
}

/**
 * Per-channel counts, from each post's targets: `scheduled` counts posts in state scheduled,
 * `published` and `failed` count the target's own delivery result, so a post that reached
 * one channel and failed on another counts as published on the first and failed on the second.
 * Test posts never reached a platform, so only live posts count.
 */
@Injectable()
export class AnalyticsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly platforms: PlatformRegistry,
  ) {}

  async channels(projectId: number): Promise<ChannelStatsListDto> {
    const rows = (await this.db.query(
      `SELECT c.id, c.account_id, c.platform, c.channel_id, c.title, c.username, c.url,
              a.needs_reconnect, a.limits,
              count(p.id) FILTER (WHERE p.status = 'scheduled')::int AS scheduled,
              count(p.id) FILTER (WHERE t.status = 'published')::int AS published,
              count(p.id) FILTER (WHERE t.status = 'failed')::int AS failed
         FROM channels c
         JOIN accounts a ON a.id = c.account_id
         LEFT JOIN post_targets t ON t.channel_id = c.id
         LEFT JOIN posts p ON p.id = t.post_id AND p.project_id = c.project_id AND NOT p.test
        WHERE c.project_id = $1
        GROUP BY c.id, a.needs_reconnect, a.limits
        ORDER BY c.account_id, c.id`,
      [projectId],
    )) as ChannelStatsRow[];
    const items = rows.map((row) => ({
      ...toChannelListItem(row, this.platforms),
      scheduled: row.scheduled,
      published: row.published,
      failed: row.failed,
    }));
    return { items, count: items.length };
  }
}

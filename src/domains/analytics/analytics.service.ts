import { Injectable } from '@nestjs/common';
import { toChannelListItem } from '../channels/channels.service';
import { PlatformRegistry } from '../platforms/platform-registry';
import { AnalyticsRepository } from './analytics.repository';
import { ChannelStatsListDto } from './channel-stats.dto';

/**
 * Per-channel counts, from each post's targets: `scheduled` counts posts in state scheduled,
 * `published` and `failed` count the target's own delivery result, so a post that reached
 * one channel and failed on another counts as published on the first and failed on the second.
 * Test posts never reached a platform, so only live posts count.
 */
@Injectable()
export class AnalyticsService {
  constructor(
    private readonly analytics: AnalyticsRepository,
    private readonly platforms: PlatformRegistry,
  ) {}

  async channels(projectId: number): Promise<ChannelStatsListDto> {
    const rows = await this.analytics.channelStats(projectId);
    const items = rows.map((row) => ({
      ...toChannelListItem(row, this.platforms),
      scheduled: row.scheduled,
      published: row.published,
      failed: row.failed,
    }));
    return { items, count: items.length };
  }
}

import { Injectable } from '@nestjs/common';
import { toChannelListItem } from '../channels/channels.service';
import { PlatformRegistry } from '../platforms/platform-registry';
import { AnalyticsRepository } from './analytics.repository';
import { ChannelStatsListDto } from './channel-stats.dto';

/** Per channel: `scheduled` counts posts, `published`/`failed` each target's own result. */
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

import { Injectable, Optional } from '@nestjs/common';
import { toChannelRef } from './channel-ref';
import { type ChannelRow, ChannelsRepository } from './channels.repository';
import { PlatformRegistry } from '../platforms/platform-registry';
import { ChannelDto, ChannelListItemDto } from './channel.dto';
import { formatTimestamp } from '../../infrastructure/database/timestamps';

@Injectable()
export class ChannelsService {
  constructor(
    private readonly channels: ChannelsRepository,
    // The CLI loads channels without the platforms (their pacing needs queues): no list items.
    @Optional() private readonly platforms?: PlatformRegistry,
  ) {}

  /** In the order they were added. */
  async listForProject(projectId: number): Promise<ChannelDto[]> {
    return (await this.channels.listForProject(projectId)).map(toChannelDto);
  }

  async listItems(projectId: number): Promise<ChannelListItemDto[]> {
    const platforms = this.platforms;
    if (!platforms) throw new Error('Channel list items need the registered platforms');
    return (await this.channels.listForProject(projectId)).map((row) =>
      toChannelListItem(row, platforms),
    );
  }
}

export function toChannelDto(row: Omit<ChannelRow, 'id' | 'url' | 'limits'>): ChannelDto {
  return {
    id: toChannelRef(row.platform, row.account_id, row.channel_id),
    platform: row.platform,
    account_id: row.account_id,
    channel_id: row.channel_id,
    title: row.title,
    username: row.username,
    needs_reconnect: row.needs_reconnect,
  };
}

export function toChannelListItem(
  row: ChannelRow,
  platforms: PlatformRegistry,
): ChannelListItemDto {
  const platform = platforms.get(row.platform);
  if (!platform) throw new Error(`No platform registered as ${row.platform}`);
  return {
    ...toChannelDto(row),
    url: platform.channelUrl({ channelId: row.channel_id, username: row.username, url: row.url }),
    limits: row.limits ?? platform.limits,
    missing_since: formatTimestamp(row.missing_since),
    reconnect_by: formatTimestamp(row.reconnect_by),
  };
}

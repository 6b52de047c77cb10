import { Injectable, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
import { Channel } from './channel.entity';
import { toChannelRef } from './channel-ref';
import { PlatformRegistry } from '../platforms/platform-registry';
import { ChannelDto, ChannelListItemDto } from './dto/channel.dto';
import type { PlatformLimits } from '../platforms/platform-answers';

export interface ChannelRow {
  id: number;
  account_id: number;
  platform: string;
  channel_id: string;
  title: string;
  username: string | null;
  /** The link its platform gave when it was added. */
  url: string | null;
  needs_reconnect: boolean;
  /** The account's own limits; null where its platform's apply. */
  limits: PlatformLimits | null;
}

const LIST_CHANNELS = new Statement(
  `SELECT c.id, c.account_id, c.platform, c.channel_id, c.title, c.username, c.url,
          a.needs_reconnect, a.limits
     FROM channels c JOIN accounts a ON a.id = c.account_id
    WHERE c.project_id = $1
    ORDER BY c.account_id, c.id`,
);

@Injectable()
export class ChannelsService {
  constructor(
    @InjectRepository(Channel) private readonly channels: Repository<Channel>,
    // The CLI loads channels without the platforms (their pacing needs the queues); it lists no items.
    @Optional() private readonly platforms?: PlatformRegistry,
  ) {}

  /** Every channel across the project's connected accounts, in the order they were added. */
  async listForProject(projectId: number): Promise<ChannelDto[]> {
    return (await this.rows(projectId)).map(toChannelDto);
  }

  /** The same channels as list items: each with its public link and its platform's limits. */
  async listItems(projectId: number): Promise<ChannelListItemDto[]> {
    const platforms = this.platforms;
    if (!platforms) throw new Error('Channel list items need the registered platforms');
    return (await this.rows(projectId)).map((row) => toChannelListItem(row, platforms));
  }

  private rows(projectId: number): Promise<ChannelRow[]> {
    return rowsOf<ChannelRow>(this.channels.manager, LIST_CHANNELS, [projectId]);
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

/** A channel list item: the channel, its public link and what a post may hold on its platform. */
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
  };
}

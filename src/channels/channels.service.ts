import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { rowsOf, Statement } from '../database/prepared';
import { Channel } from './channel.entity';
import { toChannelRef } from './channel-ref';
import { ChannelDto } from './dto/channel.dto';

interface ChannelRow {
  id: number;
  account_id: number;
  platform: string;
  channel_id: string;
  title: string;
  username: string | null;
  needs_reconnect: boolean;
}

const LIST_CHANNELS = new Statement(
  `SELECT c.id, c.account_id, c.platform, c.channel_id, c.title, c.username, a.needs_reconnect
     FROM channels c JOIN accounts a ON a.id = c.account_id
    WHERE c.project_id = $1
    ORDER BY c.account_id, c.id`,
);

@Injectable()
export class ChannelsService {
  constructor(@InjectRepository(Channel) private readonly channels: Repository<Channel>) {}

  /** Every channel across the project's connected accounts, in the order they were added. */
  async listForProject(projectId: number): Promise<ChannelDto[]> {
    const rows = await rowsOf<ChannelRow>(this.channels.manager, LIST_CHANNELS, [projectId]);
    return rows.map(toChannelDto);
  }
}

export function toChannelDto(row: ChannelRow): ChannelDto {
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

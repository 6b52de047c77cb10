import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
import type { DbTimestamp } from '../../infrastructure/database/timestamps';
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
  /** When the platform last said, at a send, that the channel does not exist; null while fine. */
  missing_since: DbTimestamp | null;
  /** The account's: after it nothing can renew its access. */
  reconnect_by: DbTimestamp | null;
}

const LIST_CHANNELS = new Statement(
  `SELECT c.id, c.account_id, c.platform, c.channel_id, c.title, c.username, c.url,
          c.missing_since, a.needs_reconnect, a.limits, a.reconnect_by
     FROM channels c JOIN accounts a ON a.id = c.account_id
    WHERE c.project_id = $1 AND a.removed_at IS NULL
    ORDER BY c.account_id, c.id`,
);

@Injectable()
export class ChannelsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The project's channels with their account's state, in the order they were added. */
  listForProject(projectId: number): Promise<ChannelRow[]> {
    return rowsOf<ChannelRow>(this.db, LIST_CHANNELS, [projectId]);
  }
}

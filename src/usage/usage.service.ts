import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { USAGE_SQL } from './usage-query';

/** D12 (one round trip; see usage-query.ts). */
export interface Usage {
  posts_this_month: number;
  projects_count: number;
  api_keys_count: number;
}

@Injectable()
export class UsageService {
  constructor(private readonly db: DataSource) {}

  async forUser(userId: number): Promise<Usage> {
    const [row] = (await this.db.query(USAGE_SQL, [userId])) as Usage[];
    return row;
  }
}

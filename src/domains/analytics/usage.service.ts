import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
import { USAGE_SQL } from './usage-query';

const USAGE = new Statement(USAGE_SQL);

/** The key user's usage (docs/api-rules.md#usage), in one round trip (usage-query.ts). */
export interface Usage {
  posts_this_month: number;
  projects_count: number;
  api_keys_count: number;
}

@Injectable()
export class UsageService {
  constructor(private readonly db: DataSource) {}

  async forUser(userId: number): Promise<Usage> {
    const [row] = await rowsOf<Usage>(this.db, USAGE, [userId]);
    return row;
  }
}

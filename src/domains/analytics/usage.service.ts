import { Injectable } from '@nestjs/common';
import { AnalyticsRepository, type Usage } from './analytics.repository';

@Injectable()
export class UsageService {
  constructor(private readonly analytics: AnalyticsRepository) {}

  forUser(userId: number): Promise<Usage> {
    return this.analytics.usageOf(userId);
  }
}

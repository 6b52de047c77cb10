import { Module } from '@nestjs/common';
import { UsageController } from './usage.controller';
import { AnalyticsRepository } from './analytics.repository';
import { UsageService } from './usage.service';

@Module({
  controllers: [UsageController],
  providers: [UsageService, AnalyticsRepository],
})
export class UsageModule {}

import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { MetricsController } from './metrics.controller';
import { Metrics } from '../../infrastructure/metrics/metrics.service';
import { MetricsTokenGuard } from './metrics-token.guard';
import { QueueRegistry } from '../../infrastructure/metrics/queue-registry';

/** Prometheus metrics; `Metrics` is injectable everywhere so each domain counts its own events. */
@Global()
@Module({
  imports: [DiscoveryModule],
  controllers: [MetricsController],
  providers: [Metrics, MetricsTokenGuard, QueueRegistry],
  exports: [Metrics, QueueRegistry],
})
export class MetricsModule {}

import { Module } from '@nestjs/common';
import type { PlatformNest } from '../platform-descriptor';
import { MetaGraphModule } from '../meta/meta-graph.module';
import { ThreadsApiModule } from './threads-api.module';
import { ThreadsConnector } from './threads-connector';
import { ThreadsPacing } from './threads-pacing';
import { ThreadsPublisher } from './threads-publisher';
import { ThreadsPlatform } from './threads.platform';

@Module({
  imports: [ThreadsApiModule, MetaGraphModule],
  providers: [ThreadsPacing, ThreadsPublisher, ThreadsPlatform],
  exports: [ThreadsPlatform],
})
export class ThreadsModule {}

export const THREADS_NEST: PlatformNest = {
  module: ThreadsModule,
  platform: ThreadsPlatform,
  connectorModule: ThreadsApiModule,
  connector: ThreadsConnector,
};

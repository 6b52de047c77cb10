import { Global, Module } from '@nestjs/common';
import { MetaGraphModule } from '../meta/meta-graph.module';
import { ThreadsApi } from './threads-api';
import { ThreadsConnector } from './threads-connector';

@Global()
@Module({
  imports: [MetaGraphModule],
  providers: [ThreadsApi, ThreadsConnector],
  exports: [ThreadsApi, ThreadsConnector],
})
export class ThreadsApiModule {}

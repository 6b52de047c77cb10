import { Global, Module } from '@nestjs/common';
import { MetaGraphModule } from '../meta/meta-graph.module';
import type { PlatformNest } from '../platform-descriptor';
import { InstagramApi } from './instagram-api';
import { InstagramConnector } from './instagram-connector';
import { InstagramPacing } from './instagram-pacing';
import { InstagramPublisher } from './instagram-publisher';
import { InstagramPlatform } from './instagram.platform';

/** Instagram's client and connector alone (no Redis): what the CLI loads. */
@Global()
@Module({
  imports: [MetaGraphModule],
  providers: [InstagramApi, InstagramConnector],
  exports: [InstagramApi, InstagramConnector],
})
export class InstagramApiModule {}

@Module({
  imports: [InstagramApiModule, MetaGraphModule],
  providers: [InstagramPacing, InstagramPublisher, InstagramPlatform],
  exports: [InstagramPlatform],
})
export class InstagramModule {}

export const INSTAGRAM_NEST: PlatformNest = {
  module: InstagramModule,
  platform: InstagramPlatform,
  connectorModule: InstagramApiModule,
  connector: InstagramConnector,
};

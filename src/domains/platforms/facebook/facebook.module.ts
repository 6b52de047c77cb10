import { Global, Module } from '@nestjs/common';
import { MetaGraphModule } from '../meta/meta-graph.module';
import type { PlatformNest } from '../platform-descriptor';
import { FacebookApi } from './facebook-api';
import { FacebookConnector } from './facebook-connector';
import { FacebookPacing } from './facebook-pacing';
import { FacebookPublisher } from './facebook-publisher';
import { FacebookPlatform } from './facebook.platform';

/** Facebook's client and connector alone (no Redis): what the CLI loads. */
@Global()
@Module({
  imports: [MetaGraphModule],
  providers: [FacebookApi, FacebookConnector],
  exports: [FacebookApi, FacebookConnector],
})
export class FacebookApiModule {}

@Module({
  imports: [FacebookApiModule, MetaGraphModule],
  providers: [FacebookPacing, FacebookPublisher, FacebookPlatform],
  exports: [FacebookPlatform],
})
export class FacebookModule {}

export const FACEBOOK_NEST: PlatformNest = {
  module: FacebookModule,
  platform: FacebookPlatform,
  connectorModule: FacebookApiModule,
  connector: FacebookConnector,
};

import { Global, Module } from '@nestjs/common';
import type { PlatformNest } from '../platform-descriptor';
import { XApi } from './x-api';
import { XConnector } from './x-connector';
import { XPacing } from './x-pacing';
import { XPublisher } from './x-publisher';
import { XPlatform } from './x.platform';

/** X's client and connector alone (no Redis): what the CLI loads. */
@Global()
@Module({ providers: [XApi, XConnector], exports: [XApi, XConnector] })
export class XApiModule {}

/** X as a platform: its client, publisher and pacing. */
@Module({
  imports: [XApiModule],
  providers: [XPacing, XPublisher, XPlatform],
  exports: [XPlatform],
})
export class XModule {}

/** What X's descriptor hands the application's assembly. */
export const X_NEST: PlatformNest = {
  module: XModule,
  platform: XPlatform,
  connectorModule: XApiModule,
  connector: XConnector,
};

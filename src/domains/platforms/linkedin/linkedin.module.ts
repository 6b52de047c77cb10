import { Global, Module } from '@nestjs/common';
import type { PlatformNest } from '../platform-descriptor';
import { LinkedInApi } from './linkedin-api';
import { LinkedInConnector } from './linkedin-connector';
import { LinkedInPacing } from './linkedin-pacing';
import { LinkedInPublisher } from './linkedin-publisher';
import { LinkedInPlatform } from './linkedin.platform';

/** LinkedIn's client and connector alone (no Redis): what the CLI loads. */
@Global()
@Module({ providers: [LinkedInApi, LinkedInConnector], exports: [LinkedInApi, LinkedInConnector] })
export class LinkedInApiModule {}

@Module({
  imports: [LinkedInApiModule],
  providers: [LinkedInPacing, LinkedInPublisher, LinkedInPlatform],
  exports: [LinkedInPlatform],
})
export class LinkedInModule {}

export const LINKEDIN_NEST: PlatformNest = {
  module: LinkedInModule,
  platform: LinkedInPlatform,
  connectorModule: LinkedInApiModule,
  connector: LinkedInConnector,
};

import { Module } from '@nestjs/common';
import type { PlatformNest } from '../platform-descriptor';
import { MastodonConnector } from './mastodon-connector';
import { MastodonApiModule } from './mastodon-api.module';
import { MastodonPacing } from './mastodon-pacing';
import { MastodonPublisher } from './mastodon-publisher';
import { MastodonPlatform } from './mastodon.platform';

/** Mastodon as a platform: its client, publisher and pacing. */
@Module({
  imports: [MastodonApiModule],
  providers: [MastodonPacing, MastodonPublisher, MastodonPlatform],
  exports: [MastodonPlatform],
})
export class MastodonModule {}

/** What Mastodon's descriptor hands the application's assembly. */
export const MASTODON_NEST: PlatformNest = {
  module: MastodonModule,
  platform: MastodonPlatform,
  connectorModule: MastodonApiModule,
  connector: MastodonConnector,
};

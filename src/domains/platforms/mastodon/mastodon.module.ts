import { Module } from '@nestjs/common';
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

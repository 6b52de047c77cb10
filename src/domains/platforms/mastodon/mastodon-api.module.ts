import { Global, Module } from '@nestjs/common';
import { MastodonApi } from './mastodon-api';
import { MastodonConnector } from './mastodon-connector';

/** The connector alone, without Redis or pacing, for the CLI. */
@Global()
@Module({
  providers: [MastodonApi, MastodonConnector],
  exports: [MastodonApi, MastodonConnector],
})
export class MastodonApiModule {}

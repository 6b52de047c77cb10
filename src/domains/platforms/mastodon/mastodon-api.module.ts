import { Global, Module } from '@nestjs/common';
import { MastodonApi } from './mastodon-api';
import { MastodonConnector } from './mastodon-connector';

/**
 * The Mastodon client and the account connector alone, for what connects accounts (the CLI has no
 * Redis, so no pacing).
 */
@Global()
@Module({
  providers: [MastodonApi, MastodonConnector],
  exports: [MastodonApi, MastodonConnector],
})
export class MastodonApiModule {}

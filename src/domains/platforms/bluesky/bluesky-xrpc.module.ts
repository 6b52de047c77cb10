import { Global, Module } from '@nestjs/common';
import { BlueskyConnector } from './bluesky-connector';
import { BlueskyXrpc } from './bluesky-xrpc';

/** The XRPC client and the account connector alone, for what connects accounts (the CLI too). */
@Global()
@Module({
  providers: [BlueskyXrpc, BlueskyConnector],
  exports: [BlueskyXrpc, BlueskyConnector],
})
export class BlueskyXrpcModule {}

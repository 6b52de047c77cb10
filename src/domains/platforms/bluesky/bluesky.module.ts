import { Module } from '@nestjs/common';
import type { PlatformNest } from '../platform-descriptor';
import { BlueskyConnector } from './bluesky-connector';
import { BlueskyPacing } from './bluesky-pacing';
import { BlueskyPublisher } from './bluesky-publisher';
import { BlueskySessionRepository } from './bluesky-session.repository';
import { BlueskySessions } from './bluesky-sessions';
import { BlueskyXrpcModule } from './bluesky-xrpc.module';
import { BlueskyPlatform } from './bluesky.platform';

/** Bluesky as a platform: its XRPC client, sessions, publisher and pacing. */
@Module({
  imports: [BlueskyXrpcModule],
  providers: [
    BlueskySessions,
    BlueskySessionRepository,
    BlueskyPacing,
    BlueskyPublisher,
    BlueskyPlatform,
  ],
  exports: [BlueskyPlatform],
})
export class BlueskyModule {}

/** What Bluesky's descriptor hands the application's assembly. */
export const BLUESKY_NEST: PlatformNest = {
  module: BlueskyModule,
  platform: BlueskyPlatform,
  connectorModule: BlueskyXrpcModule,
  connector: BlueskyConnector,
};

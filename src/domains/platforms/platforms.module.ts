import { Global, Module } from '@nestjs/common';
import {
  PLATFORM_CONNECTORS,
  REGISTERED_PLATFORMS,
  type Platform,
  type PlatformConnector,
} from './platform';
import { PlatformConnectors } from './platform-connectors';
import { PlatformRegistry } from './platform-registry';
import { PLATFORM_DESCRIPTORS } from './platforms';

const NESTS = PLATFORM_DESCRIPTORS.map((descriptor) => descriptor.nest());

/** The platforms' account connectors alone (no pacing, no Redis): what the CLI loads. */
@Global()
@Module({
  imports: NESTS.map((nest) => nest.connectorModule),
  providers: [
    {
      provide: PLATFORM_CONNECTORS,
      inject: NESTS.map((nest) => nest.connector),
      useFactory: (...connectors: PlatformConnector[]): PlatformConnector[] => connectors,
    },
    PlatformConnectors,
  ],
  exports: [PLATFORM_CONNECTORS, PlatformConnectors],
})
export class PlatformConnectorsModule {}

/** The registered platforms, each its folder's module and its Platform, found by name. */
@Global()
@Module({
  imports: [PlatformConnectorsModule, ...NESTS.map((nest) => nest.module)],
  providers: [
    {
      provide: REGISTERED_PLATFORMS,
      inject: NESTS.map((nest) => nest.platform),
      useFactory: (...platforms: Platform[]): Platform[] => platforms,
    },
    PlatformRegistry,
  ],
  exports: [REGISTERED_PLATFORMS, PlatformRegistry],
})
export class PlatformsModule {}

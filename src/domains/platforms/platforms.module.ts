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

/** The platforms' account connectors alone (no pacing, no Redis): what the CLI loads. */
@Global()
@Module({
  imports: PLATFORM_DESCRIPTORS.map((d) => d.nest.connectorModule),
  providers: [
    {
      provide: PLATFORM_CONNECTORS,
      inject: PLATFORM_DESCRIPTORS.map((d) => d.nest.connector),
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
  imports: [PlatformConnectorsModule, ...PLATFORM_DESCRIPTORS.map((d) => d.nest.module)],
  providers: [
    {
      provide: REGISTERED_PLATFORMS,
      inject: PLATFORM_DESCRIPTORS.map((d) => d.nest.platform),
      useFactory: (...platforms: Platform[]): Platform[] => platforms,
    },
    PlatformRegistry,
  ],
  exports: [REGISTERED_PLATFORMS, PlatformRegistry],
})
export class PlatformsModule {}

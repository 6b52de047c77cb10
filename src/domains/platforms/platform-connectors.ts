import { Inject, Injectable } from '@nestjs/common';
import { PLATFORM_CONNECTORS, type PlatformConnector } from './platform';

/** The registered platforms' connectors, by name: how accounts reach their platform. */
@Injectable()
export class PlatformConnectors {
  private readonly byName: ReadonlyMap<string, PlatformConnector>;

  constructor(@Inject(PLATFORM_CONNECTORS) connectors: PlatformConnector[]) {
    this.byName = new Map(connectors.map((connector) => [connector.platform, connector]));
  }

  /** The connector of that platform; throws for a platform none is registered for. */
  get(platform: string): PlatformConnector {
    const connector = this.byName.get(platform);
    if (!connector) throw new Error(`No platform registered as ${platform}`);
    return connector;
  }

  all(): PlatformConnector[] {
    return [...this.byName.values()];
  }
}

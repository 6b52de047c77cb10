import { Inject, Injectable } from '@nestjs/common';
import { REGISTERED_PLATFORMS, type Platform } from './platform';

/** The registered platforms, by name: how the pipeline finds a target's platform. */
@Injectable()
export class PlatformRegistry {
  private readonly byName: ReadonlyMap<string, Platform>;

  constructor(@Inject(REGISTERED_PLATFORMS) platforms: Platform[]) {
    this.byName = new Map(platforms.map((platform) => [platform.name, platform]));
  }

  /** The platform of that name; undefined when none is registered. */
  get(name: string): Platform | undefined {
    return this.byName.get(name);
  }

  all(): Platform[] {
    return [...this.byName.values()];
  }
}

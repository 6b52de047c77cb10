import { DeliveryError } from '../platform';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { HostAdmission } from '../../../infrastructure/outbound/pinned-address';
import { STORAGE_DRIVER, type StorageDriver } from '../../../infrastructure/storage/storage-driver';

export type MediaReachability = { reachable: true } | { reachable: false; reason: string };

const RECHECK_MS = 60_000;

/** Meta fetches media from their public URL: it must pass the outbound address rules. */
@Injectable()
export class MediaReach {
  private readonly logger = new Logger(MediaReach.name);
  private checked?: { reach: MediaReachability; until: number };

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    private readonly hosts: HostAdmission,
    @Optional() @Inject(STORAGE_DRIVER) private readonly storage?: StorageDriver,
  ) {}

  urlOf(storagePath: string): string {
    return this.storage
      ? this.storage.publicUrl(storagePath)
      : `${this.config.publicBaseUrl}/media/${storagePath}`;
  }

  /** Read again at most once a minute: a send with media asks it, and DNS answers it. */
  async check(): Promise<MediaReachability> {
    if (this.checked && Date.now() < this.checked.until) return this.checked.reach;
    const reach = await this.freshCheck();
    this.checked = { reach, until: Date.now() + RECHECK_MS };
    return reach;
  }

  private async freshCheck(): Promise<MediaReachability> {
    const base = this.config.publicBaseUrl;
    let url: URL;
    try {
      url = new URL(this.urlOf('probe'));
    } catch {
      return { reachable: false, reason: `PUBLIC_BASE_URL (${base}) is not an absolute URL` };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return { reachable: false, reason: `PUBLIC_BASE_URL (${base}) is not http(s)` };
    const verdict = await this.hosts.admit(url, new Map());
    if (verdict === 'allowed') return { reachable: true };
    const why = verdict === 'unresolved' ? 'does not resolve' : 'is a local or private address';
    return {
      reachable: false,
      reason:
        `media are fetched from PUBLIC_BASE_URL (${base}), whose host ${why}: ` +
        'set PUBLIC_BASE_URL to an address the internet reaches (or list its range in ' +
        'OUTBOUND_ALLOW_CIDRS, for tests and development only)',
    };
  }

  /** A send with media to a Meta network: refused, naming the setting, when Meta cannot fetch them. */
  async refuseUnreachable(displayName: string): Promise<void> {
    const reach = await this.check();
    if (!reach.reachable)
      throw new DeliveryError(
        'rejected',
        `${displayName} cannot fetch this post's media: ${reach.reason}`,
        null,
        'media_url_not_public',
      );
  }

  async warnIfUnreachable(platform: string): Promise<void> {
    const reach = await this.check().catch(() => null);
    if (reach && !reach.reachable)
      this.logger.warn(`${platform} cannot fetch Herald's media: ${reach.reason}`);
  }
}

import { Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { SecretsService } from '../../../infrastructure/config/secrets.service';
import { Metrics } from '../../../infrastructure/metrics/metrics.service';
import { PlatformConnectors } from '../../platforms/platform-connectors';
import { RenewalRefused, type TokenRenewal } from '../../platforms/oauth-flow';
import { TokenRenewalRepository, type LockedRenewal } from './token-renewal.repository';

/** At a send, a token that expires sooner than this is renewed first. */
export const RENEW_AT_SEND_WITHIN_MS = 5 * 60_000;

/** A token that expires sooner than this is not used after a renewal failed. */
const STILL_USABLE_MS = 30_000;

/** An account's credentials as a run read them; `expiresAtMs` null: they do not expire. */
export interface HeldCredentials {
  accountId: number;
  platform: string;
  sealed: string;
  expiresAtMs: number | null;
  renewable: boolean;
}

type RenewalRequest = Omit<HeldCredentials, 'expiresAtMs' | 'renewable'>;

export type Renewal = LockedRenewal | { outcome: 'failed'; message: string };

const failedWith = (error: Error): Renewal => ({ outcome: 'failed', message: error.message });

export class RenewalUnavailable extends Error {}

export class AccountNeedsReconnect extends Error {}

/** One renewal per account across every process (docs/architecture.md, "Tokens that expire"). */
@Injectable()
export class TokenRenewals {
  private readonly logger = new Logger(TokenRenewals.name);
  private readonly underWay = new Map<number, Promise<LockedRenewal>>();

  constructor(
    private readonly repo: TokenRenewalRepository,
    private readonly connectors: PlatformConnectors,
    private readonly secrets: SecretsService,
    private readonly metrics: Metrics,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** Renewed first when they expire within `withinMs`; after a failure, used while still valid. */
  async forSend(
    held: HeldCredentials,
    withinMs = RENEW_AT_SEND_WITHIN_MS,
  ): Promise<{ secret: string; sealed: string }> {
    const expiresInMs = held.expiresAtMs === null ? Infinity : held.expiresAtMs - Date.now();
    if (!held.renewable || expiresInMs > withinMs) return this.opened(held.sealed);
    const renewal = await this.shared(held);
    switch (renewal.outcome) {
      case 'renewed':
      case 'renewed_elsewhere':
        return this.opened(renewal.sealed);
      case 'refused':
      case 'gone':
      case 'busy':
        throw new AccountNeedsReconnect('The platform no longer renews the account’s access');
      case 'failed':
        if (expiresInMs > STILL_USABLE_MS) return this.opened(held.sealed);
        throw new RenewalUnavailable(renewal.message);
    }
  }

  /** The sweep's: an account another is renewing right now is left to it (`busy`). */
  renew(held: RenewalRequest): Promise<Renewal> {
    return this.renewOnce(held, true).catch(failedWith);
  }

  private shared(held: RenewalRequest): Promise<Renewal> {
    let renewal = this.underWay.get(held.accountId);
    if (!renewal) {
      renewal = this.renewOnce(held, false).finally(() => this.underWay.delete(held.accountId));
      this.underWay.set(held.accountId, renewal);
    }
    return renewal.catch(failedWith);
  }

  private async renewOnce(held: RenewalRequest, skipLocked: boolean): Promise<LockedRenewal> {
    const renewal = this.renewalOf(held.platform);
    let locked: LockedRenewal;
    try {
      locked = await this.repo.renewLocked(
        held.accountId,
        held.sealed,
        skipLocked,
        () => this.ask(renewal, this.secrets.open(held.sealed)),
        (secret) => this.secrets.seal(secret),
      );
    } catch (error) {
      this.metrics.tokenRenewal(held.platform, 'failed');
      this.logger.warn(
        `Account ${held.accountId}: renewing its ${held.platform} token failed for now (${(error as Error).message})`,
      );
      await this.repo
        .failedForNow(held.accountId, RETRY_BASE_MS, RETRY_CAP_MS)
        .catch(() => undefined);
      throw error;
    }
    if (locked.outcome === 'renewed' || locked.outcome === 'refused')
      this.metrics.tokenRenewal(held.platform, locked.outcome);
    if (locked.outcome === 'refused')
      this.logger.warn(`Account ${held.accountId}: ${held.platform} refused to renew its token`);
    return locked;
  }

  private opened(sealed: string): { secret: string; sealed: string } {
    return { secret: this.secrets.open(sealed), sealed };
  }

  private async ask(renewal: TokenRenewal, secret: string) {
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new DOMException('The renewal timed out', 'TimeoutError')),
      this.config.tokenRenewal.timeoutMs,
    );
    try {
      return await renewal.renew(secret, abort.signal);
    } catch (error) {
      if (error instanceof RenewalRefused) return 'refused' as const;
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private renewalOf(platform: string): TokenRenewal {
    const renewal = this.connectors.get(platform).oauth?.renewal;
    if (!renewal) throw new Error(`${platform} renews no tokens`);
    return renewal;
  }
}

/** The sweep's wait after a transient failure: doubling from a minute, at most an hour. */
const RETRY_BASE_MS = 60_000;
const RETRY_CAP_MS = 3_600_000;

import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { TokenRenewalRepository, type DueAccount } from './token-renewal.repository';
import { TokenRenewals } from './token-renewals';

const BATCH = 200;

/** Renews tokens due within a day or a tenth of their life, skipping those another renews. */
@Injectable()
export class TokenSweep implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(TokenSweep.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private stopping = false;

  constructor(
    private readonly repo: TokenRenewalRepository,
    private readonly renewals: TokenRenewals,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.tokenRenewal.sweepIntervalMs);
    this.timer.unref();
    void this.sweep();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.stopping = true;
    await this.running;
  }

  /** Answers how many it renewed; a pass under way is joined, not doubled. */
  sweep(): Promise<number> {
    this.running ??= this.sweepOnce().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweepOnce(): Promise<number> {
    let renewed = 0;
    try {
      const seen = new Set<number>();
      for (;;) {
        const due = (await this.repo.due(BATCH)).filter((account) => !seen.has(account.id));
        if (due.length === 0 || this.stopping) break;
        due.forEach((account) => seen.add(account.id));
        renewed += await this.renewAll(due);
      }
    } catch (error) {
      this.logger.warn(`Token sweep stopped early: ${(error as Error).message}`);
    }
    if (renewed > 0) this.logger.log(`Token sweep renewed ${renewed} account(s)`);
    return renewed;
  }

  private async renewAll(due: DueAccount[]): Promise<number> {
    let next = 0;
    let renewed = 0;
    const lane = async () => {
      while (next < due.length && !this.stopping) {
        const account = due[next++];
        const renewal = await this.renewals.renew({
          accountId: account.id,
          platform: account.platform,
          sealed: account.credentials_encrypted,
        });
        if (renewal.outcome === 'renewed') renewed++;
      }
    };
    const lanes = Math.min(this.config.tokenRenewal.concurrency, due.length);
    await Promise.all(Array.from({ length: lanes }, lane));
    return renewed;
  }
}

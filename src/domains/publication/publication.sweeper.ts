import {
  Injectable,
  Logger,
  OnApplicationBootstrap,
  BeforeApplicationShutdown,
} from '@nestjs/common';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { PublicationProducer, QueueUnavailable } from './publication.queue';
import { PublicationRepository, type SweepCandidate } from './publication.repository';

const SWEEP_BATCH = 500;

/** Persist, then enqueue: this sweep adds jobs Redis did not take, at start and periodically. */
@Injectable()
export class PublicationSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PublicationSweeper.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly repo: PublicationRepository,
    private readonly producer: PublicationProducer,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.appRole === 'api') return;
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.config.publication.sweepIntervalMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Answers the number enqueued. */
  sweep(): Promise<number> {
    this.running ??= this.sweepOnce().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweepOnce(): Promise<number> {
    const graceMs = this.config.publication.queueCallTimeoutMs + 1_000;
    let enqueued = 0;
    let skipped = 0;
    let afterId = 0;
    try {
      for (;;) {
        const batch = await this.repo.sweepCandidates(afterId, graceMs, SWEEP_BATCH);
        for (const post of batch) {
          try {
            if (await this.enqueueIfMissing(post)) enqueued++;
          } catch (error) {
            // Redis away: every other post would wait out the same time-out; the next pass retries.
            if (error instanceof QueueUnavailable) throw error;
            // One job in the way must not cost the rest of the pass; the next pass retries it.
            skipped++;
            this.logger.warn(`Recovery sweep skipped post ${post.id}: ${(error as Error).message}`);
          }
        }
        if (batch.length < SWEEP_BATCH) break;
        afterId = batch[batch.length - 1].id;
      }
    } catch (error) {
      this.logger.warn(`Recovery sweep stopped early: ${(error as Error).message}`);
    }
    if (enqueued > 0 || skipped > 0)
      this.logger.log(`Recovery sweep enqueued ${enqueued} post(s), skipped ${skipped}`);
    return enqueued;
  }

  private async enqueueIfMissing(post: SweepCandidate): Promise<boolean> {
    if (await this.producer.hasLiveJob(post.id, post.publish_attempt)) return false;
    const fireAt = post.status === 'scheduled' ? post.fire_at_ms : null;
    return this.producer.enqueue(post.id, post.publish_attempt, fireAt);
  }
}

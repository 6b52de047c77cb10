import {
  Injectable,
  Logger,
  OnApplicationBootstrap,
  BeforeApplicationShutdown,
} from '@nestjs/common';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { PublicationProducer, QueueUnavailable } from './publication.queue';
import { SweepRepository, type ScheduledKey, type SweepCandidate } from './sweep.repository';

const SWEEP_BATCH = 500;

/** Persist, then enqueue: adds the jobs Redis did not take, and scheduled posts' as they near. */
@Injectable()
export class PublicationSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PublicationSweeper.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  /** Every scheduled post due before this (epoch ms) was given its job by an earlier pass. */
  private scheduledThroughMs: number | null = null;

  constructor(
    private readonly repo: SweepRepository,
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
    const tally = { enqueued: 0, skipped: 0 };
    try {
      await this.sweepActive(graceMs, tally);
      await this.sweepScheduled(graceMs, tally);
    } catch (error) {
      this.logger.warn(`Recovery sweep stopped early: ${(error as Error).message}`);
    }
    if (tally.enqueued > 0 || tally.skipped > 0)
      this.logger.log(
        `Recovery sweep enqueued ${tally.enqueued} post(s), skipped ${tally.skipped}`,
      );
    return tally.enqueued;
  }

  /** Queued and publishing posts whose job Redis lost. */
  private async sweepActive(graceMs: number, tally: Tally): Promise<void> {
    let afterId = 0;
    for (;;) {
      const batch = await this.repo.sweepCandidates(afterId, graceMs, SWEEP_BATCH);
      for (const post of batch) await this.each(post, tally, () => this.enqueueIfMissing(post));
      if (batch.length < SWEEP_BATCH) return;
      afterId = batch[batch.length - 1].id;
    }
  }

  /** Posts that came within the horizon since the last pass, and those overdue (adding is idempotent). */
  private async sweepScheduled(graceMs: number, tally: Tally): Promise<void> {
    const untilMs = Date.now() + this.config.publication.scheduleHorizonMs;
    if (this.scheduledThroughMs !== null)
      await this.enqueueScheduled(null, Date.now() - graceMs, tally);
    await this.enqueueScheduled(this.scheduledThroughMs, untilMs, tally);
    this.scheduledThroughMs = untilMs;
  }

  private async enqueueScheduled(fromMs: number | null, toMs: number, tally: Tally) {
    let after: ScheduledKey | null = null;
    for (;;) {
      const batch = await this.repo.scheduledWithin(fromMs, toMs, after, SWEEP_BATCH);
      for (const post of batch)
        await this.each(post, tally, () =>
          this.producer.enqueue(post.id, post.publish_attempt, post.fire_at_ms),
        );
      if (batch.length < SWEEP_BATCH) return;
      const last = batch[batch.length - 1];
      after = { dueKey: last.due_key, id: last.id };
    }
  }

  private async each(post: SweepCandidate, tally: Tally, work: () => Promise<boolean>) {
    try {
      if (await work()) tally.enqueued++;
    } catch (error) {
      // Redis away: every other post would wait out the same time-out; the next pass retries.
      if (error instanceof QueueUnavailable) throw error;
      // One job in the way must not cost the rest of the pass; the next pass retries it.
      tally.skipped++;
      this.logger.warn(`Recovery sweep skipped post ${post.id}: ${(error as Error).message}`);
    }
  }

  private async enqueueIfMissing(post: SweepCandidate): Promise<boolean> {
    if (await this.producer.hasLiveJob(post.id, post.publish_attempt)) return false;
    return this.producer.enqueue(post.id, post.publish_attempt);
  }
}

interface Tally {
  enqueued: number;
  skipped: number;
}

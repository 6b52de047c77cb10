import { InjectQueue } from '@nestjs/bull';
import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import type { AppConfig } from '../../infrastructure/config/config';
import { closeQueue, startWorker } from '../../infrastructure/redis/bull-queue';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { PUBLICATION_QUEUE, RetryLater, type PublicationJob } from './publication.queue';
import { PublicationService } from './publication.service';
import { waitRoomPlaces } from './send-gate';

/** Only when APP_ROLE is `worker` or `all`; the service does the work. */
@Injectable()
export class PublicationProcessor implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(PublicationProcessor.name);
  /** The pool stays open until they are done. */
  private readonly givingUp = new Set<Promise<void>>();

  constructor(
    @InjectQueue(PUBLICATION_QUEUE) private readonly queue: Queue<PublicationJob>,
    private readonly publication: PublicationService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (this.config.appRole === 'api') return;
    startWorker(
      this.queue,
      // Its slots, and as many jobs again waiting for a turn a moment away, never in a slot.
      this.config.publication.concurrency + waitRoomPlaces(this.config),
      (job) => this.publication.run(job.data.postId, job.data.attempt),
      this.logger,
      'Publication',
    );
    this.queue.on('failed', (job: Job<PublicationJob>, error: Error) => {
      if (error instanceof RetryLater) return;
      if (job.attemptsMade < (job.opts.attempts ?? 1)) {
        // Bull retries it; a job it gave up on (stalled too often) is re-enqueued by the sweep.
        this.logger.warn(`Job ${job.id} failed: ${error.message}`);
        return;
      }
      const giveUp = this.publication
        .giveUp(job.data.postId, job.data.attempt, error.message)
        .catch((e: Error) =>
          this.logger.error(`Could not finish post ${job.data.postId}: ${e.message}`),
        )
        .finally(() => this.givingUp.delete(giveUp));
      this.givingUp.add(giveUp);
    });
  }

  /** Jobs in hand finish while the database is open; one cut off recovers like a crashed one. */
  async beforeApplicationShutdown(): Promise<void> {
    await closeQueue(this.queue, this.logger, this.config.publication.queueCallTimeoutMs);
    await Promise.all(this.givingUp);
  }
}

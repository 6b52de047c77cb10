import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { SecretsService } from '../../crypto/secrets.service';
import {
  DeliveryError,
  PLATFORM_PUBLISHERS,
  type DeliveryStep,
  type OutgoingMedia,
  type PlatformPublisher,
} from './platform-publisher';
import { RetryLater } from './publication.queue';
import {
  PublicationRepository,
  type DeliveryTarget,
  type DeliveryMedia,
} from './publication.repository';
import { TelegramPacing } from './telegram-pacing';

/** A pacing wait up to this long is slept in the job; a longer one puts the job back in the queue. */
export const PACING_INLINE_MAX_MS = 1_000;

/** What one run did with one target. */
type TargetOutcome = { done: true; postPublished?: boolean } | { done: false; retryInMs: number };

const DONE: TargetOutcome = { done: true };

/**
 * Runs one publication job (D7, D15). Idempotent: the post is claimed with a state guard, each
 * send is marked in flight before it goes out, and a target already published is never sent
 * again, so a job that runs twice, is retried, or restarts after a worker died sends nothing twice.
 */
@Injectable()
export class PublicationService {
  private readonly logger = new Logger(PublicationService.name);
  private readonly publishers: Map<string, PlatformPublisher>;

  constructor(
    private readonly repo: PublicationRepository,
    private readonly pacing: TelegramPacing,
    private readonly secrets: SecretsService,
    @InjectConfig() private readonly config: AppConfig,
    @Inject(PLATFORM_PUBLISHERS) publishers: PlatformPublisher[],
  ) {
    this.publishers = new Map(publishers.map((p) => [p.platform, p]));
  }

  /** Delivers every pending target; throws RetryLater when some must wait. */
  async run(postId: number, attempt: number): Promise<void> {
    const post = await this.repo.claim(postId, attempt);
    if (!post) return; // superseded, finished, or deleted: nothing to do
    const media = post.media.map(toOutgoing);
    let retryInMs: number | null = null;
    let published = false;
    for (const target of post.targets) {
      const outcome = await this.deliver({ postId, attempt }, post.text, media, target);
      if (!outcome.done) retryInMs = Math.min(retryInMs ?? Infinity, outcome.retryInMs);
      else if (outcome.postPublished) published = true;
    }
    if (retryInMs !== null) throw new RetryLater(retryInMs);
    const status = published ? 'published' : await this.repo.finish(postId, attempt);
    if (status) this.logger.log(`Post ${postId} ${status}`);
  }

  /** The job's safety net ran out (e.g. the database kept failing): fail what is left. */
  async giveUp(postId: number, attempt: number, reason: string): Promise<void> {
    await this.repo.giveUp(postId, attempt, `Publication gave up: ${reason}`);
  }

  private async deliver(
    job: { postId: number; attempt: number },
    text: string,
    media: OutgoingMedia[],
    target: DeliveryTarget,
  ): Promise<TargetOutcome> {
    if (target.sending_since !== null) {
      // A worker died (or lost its job) between sending and recording the answer.
      await this.repo.failTarget(
        target.id,
        'delivery_unconfirmed',
        'A send to this channel was interrupted and its outcome is unknown; publish again to retry',
      );
      return DONE;
    }
    if (target.needs_reconnect) {
      await this.repo.failTarget(
        target.id,
        'channel_needs_reconnect',
        'The account of this channel must be reconnected',
      );
      return DONE;
    }
    const publisher = this.publishers.get(target.platform);
    if (!publisher) {
      await this.repo.failTarget(
        target.id,
        'platform_unsupported',
        `No publisher for ${target.platform}`,
      );
      return DONE;
    }
    const steps = publisher.plan(text, media);
    const credentials = this.secrets.open(target.credentials_encrypted);
    let reserved = target.not_before_ms;
    for (let step = target.steps_done; step < steps.length; step++) {
      const wait = await this.waitForSlot(target, steps[step], reserved);
      reserved = null;
      if (wait !== 0) return { done: false, retryInMs: wait };
      if (!(await this.repo.startSend(target.id, step))) return DONE; // another run has it
      try {
        const ids = await publisher.send(credentials, target.chat_id, steps[step]);
        const last = step === steps.length - 1;
        if (await this.repo.stepSent({ id: target.id, ...job }, ids, last))
          return { done: true, postPublished: true };
      } catch (error) {
        return this.failed(target, error);
      }
    }
    return DONE;
  }

  /**
   * Holds the send until its pacing slot: a short wait here, a long one back in the queue with the
   * slot kept on the target. Returns 0 when the send may go now, else the ms to wait in the queue.
   */
  private async waitForSlot(
    target: DeliveryTarget,
    step: DeliveryStep,
    reservedAtMs: number | null,
  ): Promise<number> {
    const now = Date.now();
    const at =
      reservedAtMs ??
      now + (await this.pacing.reserve(target.account_id, target.chat_id, step.cost));
    const wait = at - now;
    if (wait > PACING_INLINE_MAX_MS) {
      if (reservedAtMs === null) await this.repo.reserveSlot(target.id, at);
      return wait;
    }
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return 0;
  }

  private async failed(target: DeliveryTarget, error: unknown): Promise<TargetOutcome> {
    const failure =
      error instanceof DeliveryError
        ? error
        : new DeliveryError('transient', (error as Error).message ?? 'Unknown error');
    switch (failure.failure) {
      case 'rate_limited':
        // D15: Telegram said how long to wait; that is not a failure of ours.
        await this.repo.sendNotDelivered(target.id, false);
        return { done: false, retryInMs: failure.retryAfterMs ?? 1000 };
      case 'transient': {
        const failures = await this.repo.sendNotDelivered(target.id, true);
        if (failures < this.config.publication.maxTries) {
          const backoff = this.config.publication.retryBaseMs * 2 ** (failures - 1);
          this.logger.warn(`Target ${target.id}: ${failure.message}; retry in ${backoff} ms`);
          return { done: false, retryInMs: backoff };
        }
        await this.repo.failTarget(
          target.id,
          'delivery_failed',
          `Not delivered after ${failures} tries: ${failure.message}`,
        );
        return DONE;
      }
      case 'unauthorized':
        await this.repo.flagNeedsReconnect(target.account_id);
        await this.repo.failTarget(
          target.id,
          'account_needs_reconnect',
          `${failure.message}; the account must be reconnected`,
        );
        return DONE;
      case 'rejected':
        await this.repo.failTarget(target.id, 'platform_rejected', failure.message);
        return DONE;
      case 'media_unavailable':
        await this.repo.failTarget(target.id, 'media_unavailable', failure.message);
        return DONE;
      case 'unconfirmed':
        await this.repo.failTarget(target.id, 'delivery_unconfirmed', failure.message);
        return DONE;
    }
  }
}

function toOutgoing(media: DeliveryMedia): OutgoingMedia {
  return {
    type: media.type,
    mimeType: media.mime_type,
    filename: media.filename,
    storagePath: media.storage_path,
    sizeBytes: Number(media.size_bytes),
  };
}

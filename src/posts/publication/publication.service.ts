import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { SecretsService } from '../../crypto/secrets.service';
import { Metrics } from '../../metrics/metrics.service';
import { ConfirmedSends } from './confirmed-sends';
import {
  DeliveryError,
  PLATFORM_PUBLISHERS,
  type OutgoingMedia,
  type PlatformPublisher,
} from './platform-publisher';
import { RetryLater } from './publication.queue';
import { SimulatedPublisher } from './simulated-publisher';
import {
  PublicationRepository,
  type DeliveryTarget,
  type DeliveryMedia,
} from './publication.repository';
import { TelegramPacing, type PacingSlot } from './telegram-pacing';

/**
 * A wait for a busy chat up to this long is a timer in the job; a longer one puts the job back in
 * the queue with the chat's slot kept on the target. A bot's slot is waited for in the job up to
 * PACING_KEEP_AFTER_MS; a later one is kept in Redis and the job goes back to the queue.
 */
export const PACING_INLINE_MAX_MS = 1_000;

/** A job that gave its worker slot back comes back this long before its kept bot slot. */
const PACING_RETURN_LEAD_MS = 750;

/** The send's in-flight mark is written this long before its slot, so it is done when the slot comes. */
const MARK_IN_FLIGHT_LEAD_MS = 250;

/**
 * Past its time-out, how long a send may still take to be recorded by the run that made it (the
 * answer's write); only then is a send without a recorded outcome taken for one whose run died.
 */
const SEND_SETTLE_MS = 5_000;

const sleep = (ms: number) =>
  ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve();

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
  /** D22: the same platforms, simulated: test posts go through these and never leave Herald. */
  private readonly simulated: Map<string, PlatformPublisher>;

  constructor(
    private readonly repo: PublicationRepository,
    private readonly pacing: TelegramPacing,
    private readonly secrets: SecretsService,
    @InjectConfig() private readonly config: AppConfig,
    @Inject(PLATFORM_PUBLISHERS) publishers: PlatformPublisher[],
    private readonly metrics: Metrics,
    private readonly confirmed: ConfirmedSends,
  ) {
    this.publishers = new Map(publishers.map((p) => [p.platform, p]));
    this.simulated = new Map(publishers.map((p) => [p.platform, new SimulatedPublisher(p)]));
  }

  /** Delivers every pending target; throws RetryLater when some must wait. */
  async run(postId: number, attempt: number): Promise<void> {
    const post = await this.repo.claim(postId, attempt, this.pacing.freeAccounts());
    if (!post) return; // superseded, finished, or deleted: nothing to do
    const media = post.media.map(toOutgoing);
    // The one place test mode shows in the pipeline (D22): which publishers deliver.
    const publishers = post.test ? this.simulated : this.publishers;
    let retryInMs: number | null = null;
    let published = false;
    for (const target of post.targets) {
      const outcome = await this.deliver({ postId, attempt }, publishers, post.text, media, target);
      if (!outcome.done) retryInMs = Math.min(retryInMs ?? Infinity, outcome.retryInMs);
      else if (outcome.postPublished) published = true;
    }
    if (retryInMs !== null) throw new RetryLater(retryInMs);
    const status = published ? 'published' : await this.repo.finish(postId, attempt);
    if (status) this.logger.log(`Post ${postId} ${status}`);
  }

  /**
   * The job's safety net ran out (e.g. the database kept failing): what the platforms confirmed is
   * written first, then what is left fails.
   */
  async giveUp(postId: number, attempt: number, reason: string): Promise<void> {
    for (const send of this.confirmed.ofPost(postId))
      await this.writeStep({ postId, attempt }, send.targetId, send.last);
    await this.repo.giveUp(postId, attempt, `Publication gave up: ${reason}`);
  }

  private async deliver(
    job: { postId: number; attempt: number },
    publishers: Map<string, PlatformPublisher>,
    text: string,
    media: OutgoingMedia[],
    target: DeliveryTarget,
  ): Promise<TargetOutcome> {
    let firstStep = target.steps_done;
    if (target.sending_since !== null) {
      // A send whose answer was never written: a run that could not write it (the database was
      // away), or a worker that died or lost its job. Only a confirmed answer kept for it counts.
      const steps = publishers.get(target.platform)?.plan(text, media);
      const kept = await this.confirmed.find(target.id, target.steps_done);
      // Another run may still be waiting for that send's answer (its job was enqueued again while
      // it ran, as when Redis lost the queue): the outcome is unknown only once its time is up.
      const undecidedMs =
        this.config.publication.sendTimeoutMs +
        SEND_SETTLE_MS -
        (target.sending_for_ms ?? Infinity);
      if (!kept && undecidedMs > 0) return { done: false, retryInMs: undecidedMs };
      if (!kept || !steps) {
        await this.repo.failTarget(
          target.id,
          'delivery_unconfirmed',
          'A send to this channel was interrupted and its outcome is unknown; publish again to retry',
        );
        return DONE;
      }
      const last = target.steps_done === steps.length - 1;
      if (await this.writeStep(job, target.id, last)) return { done: true, postPublished: true };
      if (last) return DONE;
      firstStep++;
    }
    if (target.needs_reconnect) {
      await this.repo.failTarget(
        target.id,
        'channel_needs_reconnect',
        'The account of this channel must be reconnected',
      );
      return DONE;
    }
    const publisher = publishers.get(target.platform);
    if (!publisher) {
      await this.repo.failTarget(
        target.id,
        'platform_unsupported',
        `No publisher for ${target.platform}`,
      );
      return DONE;
    }
    const steps = publisher.plan(text, media);
    const credentials = await this.openCredentials(target);
    // A target that comes back from the queue holds the chat slot it waited for.
    let holdsChat = target.not_before_ms !== null;
    if (target.not_before_ms !== null && target.not_before_ms - Date.now() > 0) {
      // Back before its slot (a sweep re-enqueued it): wait for the slot it already holds.
      const early = target.not_before_ms - Date.now();
      if (early > PACING_INLINE_MAX_MS) return { done: false, retryInMs: early };
      await sleep(early);
    }
    // The claim may have marked the first send in flight already.
    let marked = target.marked;
    for (let step = firstStep; step < steps.length;) {
      const cost = steps[step].cost;
      // A bot that had room at its last send here likely has room now: the send is marked in
      // flight first (by the claim, or here), and its slot and its departure are one Redis call
      // (issue 14: a bot with room costs one pacing round trip, not two). A slot that is not now
      // gives the mark back, so a mark is only ever held as long as before (MARK_IN_FLIGHT_LEAD_MS).
      const markedFirst =
        marked || (cost > 0 && !holdsChat && this.pacing.expectsFree(target.account_id));
      if (markedFirst && !marked && !(await this.repo.startSend(target.id, step))) return DONE; // another run has it
      marked = false;
      // A step that costs nothing reaches no platform (a simulated one), so it is not paced.
      const slot: PacingSlot =
        cost === 0
          ? { sendAtSlot: true, waitMs: 0 }
          : await this.pacing.reserve(
              target.account_id,
              target.chat_id,
              cost,
              holdsChat,
              `${target.id}:${step}`,
              markedFirst,
            );
      if (markedFirst && slot.departWaitMs === undefined)
        await this.repo.sendNotDelivered(target.id, false);
      if (slot.kept) {
        // Its bot is booked further ahead than is worth holding a worker slot for: the job goes
        // back to the queue and the slot is kept for it (issue 14), so the jobs behind it (other
        // bots' posts) are not held up by this bot's backlog.
        return { done: false, retryInMs: Math.max(0, slot.waitMs - PACING_RETURN_LEAD_MS) };
      }
      if (!slot.sendAtSlot) {
        // The chat is busy: its next slot is held for this send, the bot is not (issue 14, a).
        if (slot.waitMs > PACING_INLINE_MAX_MS) {
          await this.repo.holdChatSlot(target.id, Date.now() + slot.waitMs);
          return { done: false, retryInMs: slot.waitMs };
        }
        await sleep(slot.waitMs);
        holdsChat = true;
        continue;
      }
      holdsChat = false;
      if (!(await this.startSendAt(target, step, cost, slot))) return DONE; // another run has it
      let messageIds: number[];
      try {
        messageIds = await publisher.send(credentials, target.chat_id, steps[step]);
      } catch (error) {
        return this.failed(target, error);
      }
      // Delivered: from here on the answer is kept until it is written (a failed write is no
      // failed send: the job goes back to the queue and the answer waits for it).
      const last = step === steps.length - 1;
      this.confirmed.keep({
        targetId: target.id,
        postId: job.postId,
        platform: target.platform,
        step,
        last,
        messageIds,
      });
      if (await this.writeStep(job, target.id, last)) return { done: true, postPublished: true };
      step++;
    }
    return DONE;
  }

  /**
   * Marks the send in flight and lets it go at its pacing slot: the mark is written while the slot
   * is still ahead, so the send does not leave a database write after its slot. At the slot, the
   * send is stamped as leaving only if the bot's and the chat's last windows have room for it
   * (issue 14): a send that comes late, or after one that did, waits the few ms that keep the
   * window whole instead of bunching with the sends around it; it never loses its turn. The waits
   * are timers, not work: a job holds no connection or CPU while it waits. A slot that already has
   * its departure's answer (`departWaitMs`) was marked before it was reserved. False when another
   * run holds the target.
   */
  private async startSendAt(
    target: DeliveryTarget,
    step: number,
    cost: number,
    slot: PacingSlot,
  ): Promise<boolean> {
    let wait = slot.departWaitMs;
    if (wait === undefined) {
      const due = sleep(slot.waitMs);
      await sleep(slot.waitMs - MARK_IN_FLIGHT_LEAD_MS);
      if (!(await this.repo.startSend(target.id, step))) return false;
      await due;
      if (cost === 0) return true; // a simulated send reaches no platform
      wait = await this.pacing.depart(target.account_id, target.chat_id, cost);
    }
    while (wait > 0) {
      // Sends held back together come back spread over a departure gap, not all at once.
      await sleep(wait + Math.random() * this.pacing.departureGapMs);
      wait = await this.pacing.depart(target.account_id, target.chat_id, cost);
    }
    return true;
  }

  /**
   * Writes the kept answer of the target's send; true when that published the post. When the
   * database refuses it, the answer is also put where another worker finds it, and the job fails
   * so that it is retried.
   */
  private async writeStep(
    job: { postId: number; attempt: number },
    targetId: number,
    last: boolean,
  ): Promise<boolean> {
    const send = this.confirmed.get(targetId);
    if (!send) throw new Error(`Target ${targetId}: no confirmed send to write`);
    let postPublished: boolean;
    try {
      postPublished = await this.repo.stepSent({ id: targetId, ...job }, send.messageIds, last);
    } catch (error) {
      await this.confirmed.writeFailed(targetId);
      this.logger.warn(
        `Target ${targetId}: delivered, but its message ids could not be written (${(error as Error).message}); kept until they are`,
      );
      throw error;
    }
    this.confirmed.written(targetId);
    if (last) this.metrics.publicationTarget(send.platform, 'published', null);
    return postPublished;
  }

  private async openCredentials(target: DeliveryTarget): Promise<string> {
    try {
      return this.secrets.open(target.credentials_encrypted);
    } catch (error) {
      // Nothing was sent: the claim's mark must not read as a send of unknown outcome later.
      if (target.marked) await this.repo.sendNotDelivered(target.id, false);
      throw error;
    }
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

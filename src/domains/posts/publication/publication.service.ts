import { Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { SecretsService } from '../../../infrastructure/config/secrets.service';
import { Metrics } from '../../../infrastructure/metrics/metrics.service';
import {
  DeliveryError,
  type DeliveryStep,
  type OutgoingMedia,
  type PacingSlot,
  type Platform,
  type PlatformMessage,
  type PlatformPacing,
  type PlatformPublisher,
  type SendTarget,
} from '../../platforms/platform';
import type { PlatformChannel, SentMessage } from '../../platforms/platform-answers';
import { PlatformRegistry } from '../../platforms/platform-registry';
import { SimulatedPublisher, simulatedMessageUrl } from '../../platforms/simulated-publisher';
import { ConfirmedSends } from './confirmed-sends';
import { RetryLater } from './publication.queue';
import {
  PublicationRepository,
  type DeliveryTarget,
  type DeliveryMedia,
} from './publication.repository';

/**
 * A wait for a busy channel up to this long is a timer in the job; a longer one puts the job back
 * in the queue with the channel's slot kept on the target. An account's slot further ahead than
 * its pacing waits for in a job is kept for it in the pacing (`kept`), and the job goes back to
 * the queue.
 */
export const PACING_INLINE_MAX_MS = 1_000;

/**
 * A departure held back longer than this (a full window of a platform that takes bursts) gives its
 * worker slot back and comes back when there is room.
 */
const DEPARTURE_INLINE_MAX_MS = 2_000;

/** A job that gave its worker slot back comes back this long before its kept account slot. */
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
const PUBLISHED: TargetOutcome = { done: true, postPublished: true };

/**
 * Where a target's sends stand with its pacing: the claim may have marked the first send in flight
 * already, and a target back from the queue holds the channel slot it waited for.
 */
interface PacingHold {
  marked: boolean;
  holdsChannel: boolean;
}

/** A step's turn: it may go now, or it waited for its channel's slot and asks again holding it. */
type Turn = 'go' | 'again';

/** How a run delivers to one platform: its publisher, and the links of the messages it makes. */
interface Delivery {
  publisher: PlatformPublisher;
  messageUrl(channel: PlatformChannel, messageId: string): string | null;
}

/**
 * Runs one publication job (docs/api-rules.md#delivery). Idempotent: the post is claimed with a
 * state guard, each send is marked in flight before it goes out, and a target already published is
 * never sent again, so a job that runs twice, is retried, or restarts after a worker died sends
 * nothing twice.
 */
@Injectable()
export class PublicationService {
  private readonly logger = new Logger(PublicationService.name);
  private readonly live: Map<string, Delivery>;
  /** The same platforms, simulated: test posts go through these and never leave Herald. */
  private readonly simulated: Map<string, Delivery>;

  constructor(
    private readonly repo: PublicationRepository,
    private readonly platforms: PlatformRegistry,
    private readonly secrets: SecretsService,
    @InjectConfig() private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly confirmed: ConfirmedSends,
  ) {
    const registered = platforms.all();
    this.live = new Map(
      registered.map((p) => [
        p.name,
        { publisher: p.publisher, messageUrl: (channel, id) => p.messageUrl(channel, id) },
      ]),
    );
    this.simulated = new Map(
      registered.map((p) => [
        p.name,
        {
          publisher: new SimulatedPublisher(p.publisher),
          messageUrl: (channel, id) => simulatedMessageUrl(p.name, channel, id),
        },
      ]),
    );
  }

  /** Delivers every pending target; throws RetryLater when some must wait. */
  async run(postId: number, attempt: number): Promise<void> {
    const post = await this.repo.claim(postId, attempt, this.platforms.freeAccounts());
    if (!post) return; // superseded, finished, or deleted: nothing to do
    const media = post.media.map(toOutgoing);
    // The one place test mode shows in the pipeline: which publishers deliver.
    const deliveries = post.test ? this.simulated : this.live;
    let retryInMs: number | null = null;
    let published = false;
    for (const target of post.targets) {
      const outcome = await this.deliver({ postId, attempt }, deliveries, post.text, media, target);
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

  /** Sends the target's steps that are left, each when its platform's pacing lets it go. */
  private async deliver(
    job: { postId: number; attempt: number },
    deliveries: Map<string, Delivery>,
    text: string,
    media: OutgoingMedia[],
    target: DeliveryTarget,
  ): Promise<TargetOutcome> {
    const delivery = deliveries.get(target.platform);
    const platform = this.platforms.get(target.platform);
    const pacing = platform?.pacing;
    const steps = delivery?.publisher.plan(text, media);
    let step = target.steps_done;
    // An earlier try of this step may have reached the platform: its next try says so.
    let retry = target.failures > 0;
    if (target.sending_since !== null) {
      const settled = await this.settleUnrecordedSend(job, target, steps, platform);
      if (settled === 'resend') retry = true;
      else if (settled) return settled;
      else step++;
    }
    if (target.needs_reconnect)
      return this.fail(
        target,
        'channel_needs_reconnect',
        'The account of this channel must be reconnected',
      );
    if (!delivery || !pacing || !steps)
      return this.fail(target, 'platform_unsupported', `No publisher for ${target.platform}`);
    const credentials = await this.openCredentials(target);
    const early = await this.waitForHeldSlot(target);
    if (early) return early;
    let hold: PacingHold = { marked: target.marked, holdsChannel: target.not_before_ms !== null };
    while (step < steps.length) {
      const turn = await this.waitForTurn(pacing, target, step, steps[step].cost, hold);
      if (turn === 'again') {
        hold = { marked: false, holdsChannel: true };
        continue;
      }
      if (turn !== 'go') return turn;
      hold = { marked: false, holdsChannel: false };
      let sent: PlatformMessage[];
      try {
        sent = await delivery.publisher.send(
          credentials,
          sendTarget(target, step, retry),
          steps[step],
        );
      } catch (error) {
        return this.failed(target, error, platform);
      }
      retry = false;
      const last = step === steps.length - 1;
      const channel = {
        channelId: target.chat_id,
        username: target.channel_username,
        url: target.channel_url,
      };
      const messages = sent.map(({ id, url }) => ({
        id,
        url: url ?? delivery.messageUrl(channel, id),
      }));
      if (await this.recordSent(job, target, step, last, messages)) return PUBLISHED;
      step++;
    }
    return DONE;
  }

  /**
   * A send whose answer was never written: a run that could not write it (the database was away),
   * or a worker that died or lost its job. Only a confirmed answer kept for it counts. Null when
   * that answer is now written and the target goes on with its next step; `resend` when the
   * outcome is unknown on a platform that recognises the send's key, so the same step goes again.
   */
  private async settleUnrecordedSend(
    job: { postId: number; attempt: number },
    target: DeliveryTarget,
    steps: DeliveryStep[] | undefined,
    platform: Platform | undefined,
  ): Promise<TargetOutcome | 'resend' | null> {
    const kept = await this.confirmed.find(target.id, target.steps_done);
    // Another run may still be waiting for that send's answer (its job was enqueued again while
    // it ran, as when Redis lost the queue): the outcome is unknown only once its time is up.
    const undecidedMs =
      this.config.publication.sendTimeoutMs + SEND_SETTLE_MS - (target.sending_for_ms ?? Infinity);
    if (!kept && undecidedMs > 0) return { done: false, retryInMs: undecidedMs };
    if (!kept && steps && platform?.confirmsByKey) {
      const failures = await this.repo.sendNotDelivered(target.id, true);
      if (failures < this.config.publication.maxTries) return 'resend';
      return this.fail(
        target,
        'delivery_failed',
        `No answer after ${failures} tries; the platform was never seen to take the message`,
      );
    }
    if (!kept || !steps) {
      return this.fail(
        target,
        'delivery_unconfirmed',
        'A send to this channel was interrupted and its outcome is unknown; publish again to retry',
      );
    }
    const last = target.steps_done === steps.length - 1;
    if (await this.writeStep(job, target.id, last)) return PUBLISHED;
    return last ? DONE : null;
  }

  /** Back before the channel slot it holds (a sweep re-enqueued it): waits for that slot. */
  private async waitForHeldSlot(target: DeliveryTarget): Promise<TargetOutcome | null> {
    const early = target.not_before_ms === null ? 0 : target.not_before_ms - Date.now();
    if (early > PACING_INLINE_MAX_MS) return { done: false, retryInMs: early };
    await sleep(early);
    return null;
  }

  /**
   * Waits for the step's turn under its platform's pacing: `go` once the send is marked in flight
   * and may leave; `again` after a wait for its channel's slot; otherwise what this run does with
   * the target (its job goes back to the queue, or another run has it).
   */
  private async waitForTurn(
    pacing: PlatformPacing,
    target: DeliveryTarget,
    step: number,
    cost: number,
    hold: PacingHold,
  ): Promise<Turn | TargetOutcome> {
    // An account that had room at its last send here likely has room now: the send is marked in
    // flight first (by the claim, or here), and its slot and its departure are one pacing call, not
    // two. A slot that is not now gives the mark back, so a mark is only ever held as long as
    // before (MARK_IN_FLIGHT_LEAD_MS).
    const markedFirst =
      hold.marked || (cost > 0 && !hold.holdsChannel && pacing.expectsFree(target.account_id));
    if (markedFirst && !hold.marked && !(await this.repo.startSend(target.id, step))) return DONE; // another run has it
    // A step that costs nothing reaches no platform (a simulated one), so it is not paced.
    const slot: PacingSlot =
      cost === 0
        ? { sendAtSlot: true, waitMs: 0 }
        : await pacing.reserve(
            target.account_id,
            target.chat_id,
            cost,
            hold.holdsChannel,
            `${target.id}:${step}`,
            markedFirst,
          );
    if (markedFirst && slot.departWaitMs === undefined)
      await this.repo.sendNotDelivered(target.id, false);
    if (slot.kept) {
      // Its account is booked further ahead than is worth holding a worker slot for: the job goes
      // back to the queue and the slot is kept for it, so the jobs behind it (other accounts'
      // posts) are not held up by this account's backlog.
      return { done: false, retryInMs: Math.max(0, slot.waitMs - PACING_RETURN_LEAD_MS) };
    }
    if (!slot.sendAtSlot) {
      // The channel is busy: its next slot is held for this send, the account is not.
      if (slot.waitMs > PACING_INLINE_MAX_MS) {
        await this.repo.holdChatSlot(target.id, Date.now() + slot.waitMs);
        return { done: false, retryInMs: slot.waitMs };
      }
      await sleep(slot.waitMs);
      return 'again';
    }
    const started = await this.startSendAt(pacing, target, step, cost, slot);
    if (typeof started !== 'boolean') return started;
    return started ? 'go' : DONE; // or another run has it
  }

  /**
   * Marks the send in flight and lets it go at its pacing slot: the mark is written while the slot
   * is still ahead, so the send does not leave a database write after its slot. At the slot, the
   * send is stamped as leaving only if the account's and the channel's last windows have room for
   * it: a send that comes late, or after one that did, waits the few ms that keep the window whole
   * instead of bunching with the sends around it; it never loses its turn. The waits are timers,
   * not work: a job holds no connection or CPU while it waits. A slot that already has its
   * departure's answer (`departWaitMs`) was marked before it was reserved. False when another run
   * holds the target.
   */
  private async startSendAt(
    pacing: PlatformPacing,
    target: DeliveryTarget,
    step: number,
    cost: number,
    slot: PacingSlot,
  ): Promise<boolean | TargetOutcome> {
    let wait = slot.departWaitMs;
    if (wait === undefined) {
      const due = sleep(slot.waitMs);
      await sleep(slot.waitMs - MARK_IN_FLIGHT_LEAD_MS);
      if (!(await this.repo.startSend(target.id, step))) return false;
      await due;
      if (cost === 0) return true; // a simulated send reaches no platform
      wait = await pacing.depart(target.account_id, target.chat_id, cost);
    }
    while (wait > 0) {
      if (wait > DEPARTURE_INLINE_MAX_MS) {
        // A full window of a platform that takes bursts (its limit over hours): the job goes back
        // to the queue until there is room, rather than hold a worker slot that long.
        await this.repo.sendNotDelivered(target.id, false);
        return { done: false, retryInMs: wait };
      }
      // Sends held back together come back spread over a departure gap, not all at once.
      await sleep(wait + Math.random() * pacing.departureGapMs);
      wait = await pacing.depart(target.account_id, target.chat_id, cost);
    }
    return true;
  }

  /**
   * Delivered: from here on the answer is kept until it is written (a failed write is no failed
   * send: the job goes back to the queue and the answer waits for it). True when that published
   * the post.
   */
  private recordSent(
    job: { postId: number; attempt: number },
    target: DeliveryTarget,
    step: number,
    last: boolean,
    messages: SentMessage[],
  ): Promise<boolean> {
    this.confirmed.keep({
      targetId: target.id,
      postId: job.postId,
      platform: target.platform,
      step,
      last,
      messages,
    });
    return this.writeStep(job, target.id, last);
  }

  private async fail(
    target: DeliveryTarget,
    code: string,
    message: string,
  ): Promise<TargetOutcome> {
    await this.repo.failTarget(target.id, code, message);
    return DONE;
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
      postPublished = await this.repo.stepSent(
        { id: targetId, ...job },
        { messages: send.messages, listedIds: this.listedIds(send.platform, send.messages) },
        last,
      );
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

  /** The messages' ids as `message_ids` lists them, on a platform whose ids it holds. */
  private listedIds(platform: string, messages: SentMessage[]): number[] {
    const listed = this.platforms.get(platform)?.listedMessageId;
    return listed ? messages.map((m) => listed(m.id)) : [];
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

  private async failed(
    target: DeliveryTarget,
    error: unknown,
    platform: Platform | undefined,
  ): Promise<TargetOutcome> {
    let failure =
      error instanceof DeliveryError
        ? error
        : new DeliveryError('transient', (error as Error).message ?? 'Unknown error');
    // The platform recognises the send's key: trying again never posts twice, so an unknown
    // outcome is retried like a send that was not delivered, its next try marked as a retry.
    if (failure.failure === 'unconfirmed' && platform?.confirmsByKey)
      failure = new DeliveryError('transient', failure.message);
    switch (failure.failure) {
      case 'rate_limited':
        // The platform said how long to wait; that is not a failure of ours.
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
        await this.repo.failTarget(
          target.id,
          failure.errorCode ?? 'platform_rejected',
          failure.message,
        );
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

/**
 * Where a step goes and its key: `<tid>-<target id in base 36>-<step>`, at most 24 characters,
 * unique to the message and the same on every try of it.
 */
function sendTarget(target: DeliveryTarget, step: number, retry: boolean): SendTarget {
  return {
    accountId: target.account_id,
    chatId: target.chat_id,
    key: `${target.delivery_key}-${target.id.toString(36)}-${step}`,
    tid: target.delivery_key,
    retry,
  };
}

function toOutgoing(media: DeliveryMedia): OutgoingMedia {
  return {
    type: media.type,
    mimeType: media.mime_type,
    filename: media.filename,
    altText: media.alt_text,
    storagePath: media.storage_path,
    sizeBytes: Number(media.size_bytes),
  };
}

import { Inject, Injectable } from '@nestjs/common';
import type { PacingSlot, PlatformPacing } from '../platforms/platform';
import { PlatformRegistry } from '../platforms/platform-registry';
import { CLOCK, type Clock } from './clock';
import { PublicationRepository } from './publication.repository';

/**
 * A wait for a busy channel up to this long is a timer in the job; a longer one puts the job back
 * in the queue with the channel's slot held on the target.
 */
export const PACING_INLINE_MAX_MS = 1_000;

/** An admission held back longer than this (a full window of a bursty platform) requeues the job. */
const ADMIT_INLINE_MAX_MS = 2_000;

/** A job that gave its worker slot back comes back this long before its saved account slot. */
const PACING_RETURN_LEAD_MS = 750;

/** The in-flight mark is written this long before the slot, so it is done when the slot comes. */
const MARK_IN_FLIGHT_LEAD_MS = 250;

/** One step of a target at the gate. */
export interface GateRequest {
  targetId: number;
  platform: string;
  accountId: number;
  channelId: string;
  step: number;
  /** The messages the step counts for in its platform's pacing. */
  cost: number;
  /** A test post's send reaches no platform: it is marked in flight, never paced. */
  simulated: boolean;
  /** The claim marked this send in flight already. */
  markedByClaim: boolean;
  /** The channel slot (epoch ms) an earlier run of the target was given, or null. */
  heldChannelSlotAtMs: number | null;
}

export type GateAnswer =
  /** Marked in flight and admitted by the pacing: send now. */
  | { pass: 'go' }
  /** Not now, and nothing is marked in flight: the job comes back in `inMs`. */
  | { pass: 'later'; inMs: number }
  /** Another run holds the target, or moved it on. */
  | { pass: 'taken' };

const GO: GateAnswer = { pass: 'go' };
const TAKEN: GateAnswer = { pass: 'taken' };
const later = (inMs: number): GateAnswer => ({ pass: 'later', inMs: Math.max(0, inMs) });

/**
 * Where a send waits for its turn: the one owner of pacing and of in-flight marks
 * (docs/architecture.md#delivering-one-target). A send passes only marked in flight, so a run that
 * dies after the gate leaves a mark the next run settles, and never a send nobody knows of.
 *
 * The fast path: an account that had room at its last reservation likely has room now, so its
 * send is marked first and reserved and admitted in one pacing call. A slot that is not now gives
 * the mark back, so a mark is never held longer than MARK_IN_FLIGHT_LEAD_MS before a slot.
 */
@Injectable()
export class SendGate {
  constructor(
    private readonly repo: PublicationRepository,
    private readonly platforms: PlatformRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Accounts whose next send the claim may mark in flight already. */
  accountsWithRoom(): number[] {
    return this.platforms.all().flatMap((platform) => platform.pacing.accountsWithRoom());
  }

  /** Gives back the mark of a send that will not go (its credentials could not be opened). */
  async release(targetId: number): Promise<void> {
    await this.repo.sendNotDelivered(targetId, false);
  }

  async pass(request: GateRequest): Promise<GateAnswer> {
    const { targetId, step } = request;
    if (request.simulated) return request.markedByClaim || (await this.mark(request)) ? GO : TAKEN;
    const pacing = this.platforms.get(request.platform)?.pacing;
    if (!pacing) throw new Error(`No pacing for ${request.platform}`);
    let marked = request.markedByClaim;
    let holdsChannel = false;
    if (request.heldChannelSlotAtMs !== null) {
      const early = request.heldChannelSlotAtMs - this.clock.now();
      if (early > PACING_INLINE_MAX_MS) {
        if (marked) await this.release(targetId);
        return later(early);
      }
      await this.clock.sleep(early);
      holdsChannel = true;
    }
    for (;;) {
      if (!marked && !holdsChannel && pacing.hadRoom(request.accountId)) {
        if (!(await this.mark(request))) return TAKEN;
        marked = true;
      }
      const slot = await pacing.reserve({
        accountId: request.accountId,
        channelId: request.channelId,
        cost: request.cost,
        holdsChannel,
        holder: `${targetId}:${step}`,
        admitIfNow: marked,
      });
      if (marked && !(slot.kind === 'booked' && slot.admitWaitMs !== undefined)) {
        await this.release(targetId);
        marked = false;
      }
      switch (slot.kind) {
        case 'saved':
          // The account is booked further ahead than a worker slot is worth holding for: the
          // jobs behind this one (other accounts' posts) must not wait for its backlog.
          return later(slot.waitMs - PACING_RETURN_LEAD_MS);
        case 'channel_busy':
          if (slot.waitMs > PACING_INLINE_MAX_MS) {
            await this.repo.holdChatSlot(targetId, this.clock.now() + slot.waitMs);
            return later(slot.waitMs);
          }
          await this.clock.sleep(slot.waitMs);
          holdsChannel = true;
          continue;
        case 'booked':
          return this.admitAtSlot(request, pacing, slot);
      }
    }
  }

  /**
   * Marks the send in flight while its slot is still ahead (the write never delays the send), then
   * asks the pacing to admit it: a send that comes late waits the few ms that keep the window whole
   * instead of bunching with the sends around it. The waits are timers: a job holds no connection
   * or CPU while it waits.
   */
  private async admitAtSlot(
    request: GateRequest,
    pacing: PlatformPacing,
    slot: Extract<PacingSlot, { kind: 'booked' }>,
  ): Promise<GateAnswer> {
    const { accountId, channelId, cost } = request;
    let wait = slot.admitWaitMs;
    if (wait === undefined) {
      const due = this.clock.sleep(slot.waitMs);
      await this.clock.sleep(slot.waitMs - MARK_IN_FLIGHT_LEAD_MS);
      if (!(await this.mark(request))) return TAKEN;
      await due;
      wait = await pacing.admit(accountId, channelId, cost);
    }
    while (wait > 0) {
      if (wait > ADMIT_INLINE_MAX_MS) {
        await this.release(request.targetId);
        return later(wait);
      }
      // Sends held back together come back spread over the admission spacing, not all at once.
      await this.clock.sleep(wait + Math.random() * pacing.admitSpacingMs);
      wait = await pacing.admit(accountId, channelId, cost);
    }
    return GO;
  }

  private mark(request: GateRequest): Promise<boolean> {
    return this.repo.startSend(request.targetId, request.step);
  }
}

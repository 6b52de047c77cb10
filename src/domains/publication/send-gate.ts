import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import type { DeliveryStep, PacingSlot, PlatformPacing } from '../platforms/platform';
import { PlatformRegistry } from '../platforms/platform-registry';
import { CLOCK, type Clock } from './clock';
import { PublicationRepository, type DeliveryTarget } from './publication.repository';

/** A longer channel wait requeues the job with the channel's slot held on the target. */
export const PACING_INLINE_MAX_MS = 1_000;

const ADMIT_INLINE_MAX_MS = 2_000;

const PACING_RETURN_LEAD_MS = 750;

/** Written this long before the slot, so it is done when the slot comes. */
const MARK_IN_FLIGHT_LEAD_MS = 250;

/** Places beside the worker's slots to wait for a turn a moment away (docs/performance.md). */
export class WaitRoom {
  private waiting = 0;

  constructor(readonly places: number) {}

  take(): boolean {
    if (this.waiting >= this.places) return false;
    this.waiting++;
    return true;
  }

  leave(): void {
    this.waiting--;
  }
}

/** The worker takes jobs for its slots and these; a send finding no place goes back to the queue. */
export const waitRoomPlaces = (config: AppConfig): number => 2 * config.publication.concurrency;

/** One send (a target's step) as its pacing counts it. */
export interface PacedSend {
  targetId: number;
  platform: string;
  accountId: number;
  channelId: string;
  step: number;
  cost: number;
  calls?: number;
}

export function pacedSend(
  target: Pick<DeliveryTarget, 'id' | 'platform' | 'account_id' | 'chat_id'>,
  step: number,
  { cost, calls }: Pick<DeliveryStep, 'cost' | 'calls'>,
): PacedSend {
  const { id: targetId, platform, account_id: accountId, chat_id: channelId } = target;
  return { targetId, platform, accountId, channelId, step, cost, calls };
}

export interface GateRequest extends PacedSend {
  /** A test post's send reaches no platform: it is marked in flight, never paced. */
  simulated: boolean;
  /** Progress kept from an earlier try (a container): paced then, only marked in flight now. */
  continues: boolean;
  markedByClaim: boolean;
  /** Epoch ms, or null. */
  heldChannelSlotAtMs: number | null;
}

export type GateAnswer =
  | { pass: 'go' }
  /** Nothing is marked in flight: the job comes back in `inMs`. */
  | { pass: 'later'; inMs: number }
  | { pass: 'taken' };

const GO: GateAnswer = { pass: 'go' };
const TAKEN: GateAnswer = { pass: 'taken' };
const later = (inMs: number): GateAnswer => ({ pass: 'later', inMs: Math.max(0, inMs) });

/** The one owner of pacing and in-flight marks (docs/architecture.md#delivering-one-target). */
@Injectable()
export class SendGate {
  readonly room: WaitRoom;

  constructor(
    private readonly repo: PublicationRepository,
    private readonly platforms: PlatformRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
    @InjectConfig() config: AppConfig,
  ) {
    this.room = new WaitRoom(waitRoomPlaces(config));
  }

  accountsWithRoom(): number[] {
    return this.platforms.all().flatMap((platform) => platform.pacing.accountsWithRoom());
  }

  /** For a send that will not go (its credentials could not be opened). */
  async release(targetId: number): Promise<void> {
    await this.repo.sendNotDelivered(targetId, false);
  }

  async pass(request: GateRequest): Promise<GateAnswer> {
    if (request.simulated || request.continues)
      return request.markedByClaim || (await this.mark(request)) ? GO : TAKEN;
    const pacing = this.platforms.get(request.platform)?.pacing;
    if (!pacing) throw new Error(`No pacing for ${request.platform}`);
    const place = this.room.take();
    try {
      return await this.paced(request, pacing, place);
    } finally {
      if (place) this.room.leave();
    }
  }

  /** Without a `place` nothing is waited for here: the job comes back for it. */
  private async paced(
    request: GateRequest,
    pacing: PlatformPacing,
    place: boolean,
  ): Promise<GateAnswer> {
    const { targetId } = request;
    let marked = request.markedByClaim;
    let holdsChannel = false;
    if (request.heldChannelSlotAtMs !== null) {
      const early = request.heldChannelSlotAtMs - this.clock.now();
      if (early > PACING_INLINE_MAX_MS || (early > 0 && !place)) {
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
        calls: request.calls,
        holdsChannel,
        holder: holderOf(request),
        admitIfNow: marked,
        ...(place ? {} : { saveAfterMs: 0 }),
      });
      if (marked && !(slot.kind === 'booked' && slot.admitWaitMs !== undefined)) {
        await this.release(targetId);
        marked = false;
      }
      switch (slot.kind) {
        case 'saved':
          // Too far ahead to wait here: back a little early, or at the slot when it is near.
          return later(
            slot.waitMs > PACING_RETURN_LEAD_MS ? slot.waitMs - PACING_RETURN_LEAD_MS : slot.waitMs,
          );
        case 'channel_busy':
          if (slot.waitMs > PACING_INLINE_MAX_MS || !place) {
            await this.repo.holdChatSlot(targetId, this.clock.now() + slot.waitMs);
            return later(slot.waitMs);
          }
          await this.clock.sleep(slot.waitMs);
          holdsChannel = true;
          continue;
        case 'booked':
          return this.admitAtSlot(request, pacing, slot, place);
      }
    }
  }

  /** Marks while the slot is ahead, then admits: a late send waits the ms that keep the window. */
  private async admitAtSlot(
    request: GateRequest,
    pacing: PlatformPacing,
    slot: Extract<PacingSlot, { kind: 'booked' }>,
    place: boolean,
  ): Promise<GateAnswer> {
    const { accountId, channelId, cost, calls } = request;
    const holder = holderOf(request);
    let wait = slot.admitWaitMs;
    if (wait === undefined) {
      const due = this.clock.sleep(slot.waitMs);
      await this.clock.sleep(slot.waitMs - MARK_IN_FLIGHT_LEAD_MS);
      if (!(await this.mark(request))) return TAKEN;
      await due;
      wait = await pacing.admit(accountId, channelId, cost, calls, holder);
    }
    while (wait > 0) {
      if (wait > ADMIT_INLINE_MAX_MS || !place) {
        await this.release(request.targetId);
        return later(wait);
      }
      await this.clock.sleep(wait + Math.random() * pacing.admitSpacingMs);
      wait = await pacing.admit(accountId, channelId, cost, calls, holder);
    }
    return GO;
  }

  /** The send `pass` let go was answered or failed; not awaited (the pacing bounds and logs it). */
  answered(request: PacedSend): void {
    const pacing = this.platforms.get(request.platform)?.pacing;
    void pacing?.settle(
      request.accountId,
      request.channelId,
      holderOf(request),
      request.cost,
      request.calls,
    );
  }

  private mark(request: GateRequest): Promise<boolean> {
    return this.repo.startSend(request.targetId, request.step);
  }
}

function holderOf({ targetId, step }: PacedSend): string {
  return `${targetId}:${step}`;
}

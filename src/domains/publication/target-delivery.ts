import { Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { SecretsService } from '../../infrastructure/config/secrets.service';
import { Metrics } from '../../infrastructure/metrics/metrics.service';
import {
  DeliveryError,
  type DeliveryStep,
  type Platform,
  type PlatformMessage,
  type PlatformPublisher,
  type ReplyTarget,
  type SendTarget,
  type TargetFailureCode,
} from '../platforms/platform';
import type { PlatformChannel, SentMessage } from '../platforms/platform-answers';
import { PlatformRegistry } from '../platforms/platform-registry';
import {
  AccountNeedsReconnect,
  RenewalUnavailable,
  TokenRenewals,
} from '../connections/renewal/token-renewals';
import { DeliveryReceipts } from './delivery-receipts';
import { PublicationRepository, type DeliveryTarget } from './publication.repository';
import { pacedSend, SendGate } from './send-gate';
import { stepTid } from './step-keys';

/** Past its time-out, how long a send may take to be recorded before its run counts as dead. */
const SEND_SETTLE_MS = 5_000;

/** Starts at `settle` or `gate`, then `gate` → `send` → `record` → `gate` until a final state. */
export type DeliveryState =
  | { at: 'settle' }
  /** `first`: the run's first pass, holding what the claim marked or an earlier run was given. */
  | { at: 'gate'; step: number; retry: boolean; first: boolean }
  /** `retry`: an earlier try of this very message may have reached the platform. */
  | { at: 'send'; step: number; retry: boolean }
  | { at: 'record'; step: number; last: boolean; messages: SentMessage[] }
  | FinalState;

export type FinalState =
  /** Delivered, or another run holds the target. */
  | { at: 'done'; postPublished: boolean }
  /** Nothing is in flight. */
  | { at: 'later'; inMs: number }
  | { at: 'failed'; code: TargetFailureCode; message: string };

const isFinal = (state: DeliveryState): state is FinalState =>
  state.at === 'done' || state.at === 'later' || state.at === 'failed';

export interface DeliveryRun {
  job: { postId: number; attempt: number };
  target: DeliveryTarget;
  /** A test post: simulated, never paced, never leaving Herald. */
  simulated: boolean;
  /** Null when the platform is no longer registered. */
  platform: Platform | null;
  publisher: PlatformPublisher | null;
  messageUrl: (channel: PlatformChannel, messageId: string) => string | null;
  steps: DeliveryStep[] | null;
  /** Opened from the account's sealed credentials at the run's first pass; never logged. */
  credentials?: string;
  /** Those credentials sealed, as stored (a renewal at a send may have replaced the target's). */
  sealedCredentials?: string;
  /** A refused send already had the account's token renewed once in this run. */
  renewedAfterRefusal?: boolean;
}

/** Every way a target can go, each rule against posting twice (docs/architecture.md). */
@Injectable()
export class TargetDelivery {
  private readonly logger = new Logger(TargetDelivery.name);

  constructor(
    private readonly repo: PublicationRepository,
    private readonly gate: SendGate,
    private readonly receipts: DeliveryReceipts,
    private readonly secrets: SecretsService,
    private readonly renewals: TokenRenewals,
    private readonly platforms: PlatformRegistry,
    private readonly metrics: Metrics,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** A failure is written before it is answered. */
  async deliver(run: DeliveryRun): Promise<FinalState> {
    let state = this.begin(run);
    while (!isFinal(state)) state = await this.next(run, state);
    if (state.at === 'failed') await this.repo.failTarget(run.target.id, state.code, state.message);
    return state;
  }

  begin(run: DeliveryRun): DeliveryState {
    const { target } = run;
    if (target.sending_since !== null) return { at: 'settle' };
    return this.ready(run, target.steps_done, target.failures > 0, true);
  }

  next(run: DeliveryRun, state: Exclude<DeliveryState, FinalState>): Promise<DeliveryState> {
    switch (state.at) {
      case 'settle':
        return this.settle(run);
      case 'gate':
        return this.pass(run, state);
      case 'send':
        return this.send(run, state);
      case 'record':
        return this.record(run, state);
    }
  }

  /** True when it published the post; a refused write leaves a copy for others, fails the job. */
  async writeReceipt(job: DeliveryRun['job'], targetId: number, last: boolean): Promise<boolean> {
    const receipt = this.receipts.get(targetId);
    if (!receipt) throw new Error(`Target ${targetId}: no receipt to write`);
    let postPublished: boolean;
    try {
      const listed = this.platforms.get(receipt.platform)?.listedMessageId;
      postPublished = await this.repo.stepSent(
        { id: targetId, ...job },
        {
          messages: receipt.messages,
          listedIds: listed ? receipt.messages.map((m) => listed(m.id)) : [],
        },
        last,
      );
    } catch (error) {
      await this.receipts.writeFailed(targetId);
      this.logger.warn(
        `Target ${targetId}: delivered, but its message ids could not be written (${(error as Error).message}); kept until they are`,
      );
      throw error;
    }
    this.receipts.written(targetId);
    if (last) this.metrics.publicationTarget(receipt.platform, 'published', null);
    return postPublished;
  }

  private ready(run: DeliveryRun, step: number, retry: boolean, first: boolean): DeliveryState {
    if (run.target.account_removed)
      return failed('channel_removed', 'The account of this channel was removed from the project');
    if (run.target.needs_reconnect)
      return failed('channel_needs_reconnect', 'The account of this channel must be reconnected');
    if (!run.publisher || !run.platform || !run.steps)
      return failed('platform_unsupported', `No publisher for ${run.target.platform}`);
    if (step >= run.steps.length) return { at: 'done', postPublished: false };
    return { at: 'gate', step, retry, first };
  }

  /** No written answer: delivered only if a receipt is held, unknown once its time is up. */
  private async settle(run: DeliveryRun): Promise<DeliveryState> {
    const { target, steps, platform } = run;
    const receipt = await this.receipts.find(target.id, target.steps_done);
    const undecidedMs =
      this.config.publication.sendTimeoutMs + SEND_SETTLE_MS - (target.sending_for_ms ?? Infinity);
    if (!receipt && undecidedMs > 0) return { at: 'later', inMs: undecidedMs };
    if (!receipt && steps && platform?.confirmsByKey) {
      // The platform recognises the send's key: the same step goes again, marked a retry.
      const failures = await this.repo.sendNotDelivered(target.id, true);
      if (failures < this.config.publication.maxTries)
        return this.ready(run, target.steps_done, true, false);
      return failed(
        'delivery_failed',
        `No answer after ${failures} tries; the platform was never seen to take the message`,
      );
    }
    if (!receipt || !steps) {
      return failed(
        'delivery_unconfirmed',
        'A send to this channel was interrupted and its outcome is unknown; publish again to retry',
      );
    }
    const last = target.steps_done === steps.length - 1;
    if (await this.writeReceipt(run.job, target.id, last))
      return { at: 'done', postPublished: true };
    target.messages.push(...receipt.messages);
    return this.ready(run, target.steps_done + 1, false, false);
  }

  private async pass(
    run: DeliveryRun,
    state: Extract<DeliveryState, { at: 'gate' }>,
  ): Promise<DeliveryState> {
    const { target } = run;
    const markedByClaim = state.first && target.marked;
    if (run.credentials === undefined) {
      try {
        Object.assign(run, await this.credentialsOf(run));
      } catch (error) {
        // Nothing was sent: the claim's mark must not read as a send of unknown outcome later.
        if (markedByClaim) await this.gate.release(target.id);
        if (error instanceof AccountNeedsReconnect)
          return failed('account_needs_reconnect', `${error.message}; it must be reconnected`);
        if (error instanceof RenewalUnavailable)
          return this.retryLater(run, `The access token could not be renewed: ${error.message}`);
        throw error;
      }
    }
    const answer = await this.gate.pass({
      ...pacedSend(run.target, state.step, run.steps![state.step]),
      simulated: run.simulated,
      continues: target.send_progress?.step === state.step,
      markedByClaim,
      heldChannelSlotAtMs: state.first ? target.not_before_ms : null,
    });
    switch (answer.pass) {
      case 'go':
        return { at: 'send', step: state.step, retry: state.retry };
      case 'later':
        return { at: 'later', inMs: answer.inMs };
      case 'taken':
        return { at: 'done', postPublished: false };
    }
  }

  private async send(
    run: DeliveryRun,
    state: Extract<DeliveryState, { at: 'send' }>,
  ): Promise<DeliveryState> {
    const steps = run.steps!;
    const step = steps[state.step];
    let sent: PlatformMessage[];
    try {
      const replyTo = step.reply ? replyTarget(run.target) : undefined;
      sent = await run.publisher!.send(
        run.credentials!,
        {
          ...this.sendTarget(run, state.step, state.retry),
          ...(replyTo ? { replyTo } : {}),
        },
        step,
      );
    } catch (error) {
      return this.afterFailedSend(run, error);
    } finally {
      if (!run.simulated) this.gate.answered(pacedSend(run.target, state.step, step));
    }
    const channel = {
      channelId: run.target.chat_id,
      username: run.target.channel_username,
      url: run.target.channel_url,
    };
    const messages = sent.map(({ id, url, cid }) => ({
      id,
      url: url ?? run.messageUrl(channel, id),
      ...(cid ? { cid } : {}),
    }));
    return { at: 'record', step: state.step, last: state.step === steps.length - 1, messages };
  }

  /** The answer is held from here until it is written (a failed write is no failed send). */
  private async record(
    run: DeliveryRun,
    state: Extract<DeliveryState, { at: 'record' }>,
  ): Promise<DeliveryState> {
    const { target, job } = run;
    this.receipts.hold({
      targetId: target.id,
      postId: job.postId,
      platform: target.platform,
      step: state.step,
      last: state.last,
      messages: state.messages,
    });
    const postPublished = await this.writeReceipt(job, target.id, state.last);
    target.messages.push(...state.messages);
    // The channel took a send: it exists again. Only a flag, after the answer is safe.
    if (target.channel_missing && state.step === 0)
      await this.repo.markChannelMissing(target.id, false).catch(() => undefined);
    if (postPublished) return { at: 'done', postPublished: true };
    return this.ready(run, state.step + 1, false, false);
  }

  /** `<tid>-<target id in base 36>-<step>`: at most 24 characters, the same on every try. */
  private sendTarget({ target, platform }: DeliveryRun, step: number, retry: boolean): SendTarget {
    const kept = target.send_progress;
    return {
      accountId: target.account_id,
      chatId: target.chat_id,
      key: `${target.delivery_key}-${target.id.toString(36)}-${step}`,
      tid: stepTid(target.delivery_key, step),
      retry,
      progress: kept?.step === step ? kept.value : null,
      keep: async (value) => {
        await this.repo.keepProgress(target.id, step, value);
        target.send_progress = { step, value };
      },
      // Never awaited: the pacing bounds its own Redis call and logs when it fails.
      observeRateLimit: (report) =>
        void platform?.pacing.observe(target.account_id, target.chat_id, report),
    };
  }

  /** Credentials in clear, an expiring access token renewed first (a test post sends nothing). */
  private async credentialsOf(
    { target, simulated, sealedCredentials }: DeliveryRun,
    renewNow = false,
  ): Promise<Pick<DeliveryRun, 'credentials' | 'sealedCredentials'>> {
    const sealed = sealedCredentials ?? target.credentials_encrypted ?? '';
    if (simulated) return { credentials: this.secrets.open(sealed), sealedCredentials: sealed };
    const held = await this.renewals.forSend({
      accountId: target.account_id,
      platform: target.platform,
      sealed,
      expiresAtMs: renewNow ? 0 : target.token_expires_ms,
      renewable: target.token_renewable,
    });
    return { credentials: held.secret, sealedCredentials: held.sealed };
  }

  /** A refused renewable token is renewed once and the send tried again, before any reconnect. */
  private async renewedAfterRefusal(run: DeliveryRun): Promise<DeliveryState | null> {
    if (!run.target.token_renewable || run.renewedAfterRefusal) return null;
    run.renewedAfterRefusal = true;
    try {
      Object.assign(run, await this.credentialsOf(run, true));
    } catch (error) {
      if (error instanceof AccountNeedsReconnect) return null;
      if (error instanceof RenewalUnavailable)
        return this.retryLater(run, `The access token could not be renewed: ${error.message}`);
      throw error;
    }
    await this.repo.sendNotDelivered(run.target.id, false);
    return this.ready(run, run.target.steps_done, false, false);
  }

  /** Not delivered, worth trying again: later with backoff, until the tries run out. */
  private async retryLater(run: DeliveryRun, reason: string): Promise<DeliveryState> {
    const { target } = run;
    const failures = await this.repo.sendNotDelivered(target.id, true);
    if (failures < this.config.publication.maxTries) {
      const backoff = this.config.publication.retryBaseMs * 2 ** (failures - 1);
      this.logger.warn(`Target ${target.id}: ${reason}; retry in ${backoff} ms`);
      return { at: 'later', inMs: backoff };
    }
    return failed('delivery_failed', `Not delivered after ${failures} tries: ${reason}`);
  }

  private async afterFailedSend(run: DeliveryRun, error: unknown): Promise<DeliveryState> {
    const { target } = run;
    let failure =
      error instanceof DeliveryError
        ? error
        : new DeliveryError('transient', (error as Error).message ?? 'Unknown error');
    if (failure.failure === 'unconfirmed' && run.platform?.confirmsByKey)
      failure = new DeliveryError('transient', failure.message);
    switch (failure.failure) {
      case 'rate_limited':
      case 'not_ready': {
        // The platform said how long to wait, for every worker's sends of the account.
        const inMs = failure.retryAfterMs ?? 1000;
        if (failure.failure === 'rate_limited' && failure.limits === 'account')
          await run.platform?.pacing.holdAccount(target.account_id, Date.now() + inMs);
        await this.repo.sendNotDelivered(target.id, false);
        return { at: 'later', inMs };
      }
      case 'transient':
        return this.retryLater(run, failure.message);
      case 'unauthorized':
        if (run.target.token_renewable) {
          const renewed = await this.renewedAfterRefusal(run);
          if (renewed) return renewed;
        }
        await this.repo.flagNeedsReconnect(target.account_id);
        return failed(
          'account_needs_reconnect',
          `${failure.message}; the account must be reconnected`,
        );
      case 'rejected':
        return failed(failure.errorCode ?? 'platform_rejected', failure.message);
      case 'channel_gone':
        await this.repo.markChannelMissing(target.id, true);
        return failed(failure.errorCode ?? 'platform_rejected', failure.message);
      case 'media_unavailable':
        return failed('media_unavailable', failure.message);
      case 'unconfirmed':
        return failed('delivery_unconfirmed', failure.message);
    }
  }
}

function failed(code: TargetFailureCode, message: string): FinalState {
  return { at: 'failed', code, message };
}

/** The messages this target has recorded, in order: a reply never names a guessed parent. */
function replyTarget(target: DeliveryTarget): ReplyTarget {
  const recorded = target.messages;
  if (recorded.length === 0)
    throw new DeliveryError('rejected', 'A reply has no recorded message to answer');
  const ref = ({ id, cid }: SentMessage) => ({ id, ...(cid ? { cid } : {}) });
  return { parent: ref(recorded[recorded.length - 1]), root: ref(recorded[0]) };
}

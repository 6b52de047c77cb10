import {
  DeliveryError,
  type DeliveryStep,
  type OutgoingMedia,
  type PlatformMessage,
  type SendTarget,
} from '../platform';
import { graphRejected, type GraphPlatform } from './graph-failures';
import type { MediaReach } from './media-reach';

export type ContainerParams = Record<string, string | undefined>;

type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';

interface ContainerState {
  status: ContainerStatus;
  errorMessage: string | null;
}

const KNOWN: readonly ContainerStatus[] = [
  'IN_PROGRESS',
  'FINISHED',
  'PUBLISHED',
  'ERROR',
  'EXPIRED',
];

function containerStatusOf(value: unknown): ContainerStatus {
  return KNOWN.includes(value as ContainerStatus) ? (value as ContainerStatus) : 'IN_PROGRESS';
}

/** What a send made before publishing, kept so a later try finishes it rather than redo it. */
export interface ContainerProgress {
  children?: string[];
  container?: string;
  since: number;
}

/** A post Meta lists on the account: how a publication whose answer was lost is found. */
export interface ListedPost {
  id?: string;
  permalink?: string;
  text?: string;
  timestamp?: string;
}

/** One send's view of a container network: its calls bound to the account, its parameter names. */
export interface ContainerNetwork {
  readonly platform: GraphPlatform;
  create(params: ContainerParams, signal: AbortSignal): Promise<{ id?: string } | undefined>;
  status(id: string, signal: AbortSignal): Promise<{ status?: unknown; error?: unknown }>;
  publish(containerId: string, signal: AbortSignal): Promise<{ id?: string } | undefined>;
  permalink(id: string, signal: AbortSignal): Promise<string | null>;
  /** Refuses (`rate_limited`) when the account's own publishing quota is spent. */
  quotaLeft(signal: AbortSignal): Promise<void>;
  recent(signal: AbortSignal): Promise<ListedPost[]>;
  itemParams(medium: OutgoingMedia, url: string, carouselItem: boolean): ContainerParams;
  /** The container that is published: the text, with one medium's or a carousel's parameters. */
  postParams(
    step: DeliveryStep,
    medium: ContainerParams | null,
    children: string[] | null,
    target: SendTarget,
  ): ContainerParams;
}

/** An account's own publishing quota, as Meta answers it for the container networks. */
export interface PublishingLimit {
  data?: { quota_usage?: number; config?: { quota_total?: number; quota_duration?: number } }[];
}

const QUOTA_RECHECK_MS = 10 * 60_000;

/** A spent quota waits (`rate_limited`), asked again in 10 minutes; nothing is made meanwhile. */
export function refuseSpentQuota(answer: PublishingLimit | undefined, account: string): void {
  const [limit] = answer?.data ?? [];
  const used = limit?.quota_usage;
  const total = limit?.config?.quota_total;
  if (typeof used === 'number' && typeof total === 'number' && used >= total)
    throw new DeliveryError(
      'rate_limited',
      `The ${account} has published ${used} of its ${total} posts in 24 hours`,
      QUOTA_RECHECK_MS,
      null,
      // The quota is the channel's own: the account's other channels go on.
      'channel',
    );
}

export const PROCESSING_GIVE_UP_MS = 20 * 60_000;
const NOT_READY_MIN_MS = 1_000;
const NOT_READY_MAX_MS = 60_000;
const NOT_READY_EAGER_MS = 10_000;

/** Every second while young (most images are ready), then as long as it has processed. */
export function notReadyWaitMs(processingForMs: number): number {
  if (processingForMs < NOT_READY_EAGER_MS) return NOT_READY_MIN_MS;
  return Math.min(NOT_READY_MAX_MS, processingForMs);
}
const CLOCKS_APART_MS = 60_000;

export function readContainerProgress(kept: string | null): ContainerProgress | null {
  if (kept === null) return null;
  try {
    const progress = JSON.parse(kept) as Partial<ContainerProgress>;
    if (typeof progress.since !== 'number') return null;
    const children = Array.isArray(progress.children)
      ? progress.children.filter((id): id is string => typeof id === 'string')
      : undefined;
    const container = typeof progress.container === 'string' ? progress.container : undefined;
    return { since: progress.since, children, container };
  } catch {
    return null;
  }
}

/** Publishing through containers exactly once (docs/architecture.md, the meta folder). */
export class ContainerFlow {
  constructor(private readonly reach: MediaReach) {}

  /** A post is one container: the text alone, one medium, or a carousel of them. */
  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    const kind = media.length === 0 ? 'text' : media.length === 1 ? 'single' : 'album';
    return [{ kind, text, media, cost: 1 }];
  }

  async deliver(
    network: ContainerNetwork,
    target: SendTarget,
    step: DeliveryStep,
    signal: AbortSignal,
  ): Promise<PlatformMessage[]> {
    let kept = readContainerProgress(target.progress);
    if (kept?.container) {
      const state = await this.state(network, kept.container, signal);
      if (state.status === 'PUBLISHED') return this.published(network, kept, step, signal);
      if (state.status === 'EXPIRED') kept = null;
    }
    if (!kept?.container) await network.quotaLeft(signal);
    const container = await this.ready(network, target, step, kept, signal);
    const answer = await network.publish(container, signal);
    const name = network.platform.displayName;
    if (typeof answer?.id !== 'string' || answer.id === '')
      throw new DeliveryError('unconfirmed', `${name} answered the publication without a post id`);
    return [{ id: answer.id, url: await network.permalink(answer.id, signal).catch(() => null) }];
  }

  private async ready(
    network: ContainerNetwork,
    target: SendTarget,
    step: DeliveryStep,
    kept: ContainerProgress | null,
    signal: AbortSignal,
  ): Promise<string> {
    let progress = kept ?? { since: Date.now() };
    if (!progress.container) {
      if (step.media.length > 0) await this.reach.refuseUnreachable(network.platform.displayName);
      if (step.media.length > 1)
        progress = await this.carouselItems(network, target, step, progress, signal);
      const medium =
        step.media.length === 1
          ? network.itemParams(step.media[0], this.reach.urlOf(step.media[0].storagePath), false)
          : null;
      const params = network.postParams(step, medium, progress.children ?? null, target);
      const container = await this.make(network, params, signal);
      progress = { ...progress, container };
      await target.keep(JSON.stringify(progress));
    }
    await this.finished(network, progress.container!, progress.since, signal);
    return progress.container!;
  }

  private async state(
    network: ContainerNetwork,
    id: string,
    signal: AbortSignal,
  ): Promise<ContainerState> {
    const answer = await network.status(id, signal);
    return {
      status: containerStatusOf(answer?.status),
      errorMessage: typeof answer?.error === 'string' ? answer.error : null,
    };
  }

  private async carouselItems(
    network: ContainerNetwork,
    target: SendTarget,
    step: DeliveryStep,
    progress: ContainerProgress,
    signal: AbortSignal,
  ): Promise<ContainerProgress> {
    let children = progress.children;
    if (!children) {
      children = [];
      for (const medium of step.media) {
        const params = network.itemParams(medium, this.reach.urlOf(medium.storagePath), true);
        children.push(await this.make(network, params, signal));
      }
      progress = { ...progress, children };
      await target.keep(JSON.stringify(progress));
    }
    for (const child of children) await this.finished(network, child, progress.since, signal);
    return progress;
  }

  private async make(network: ContainerNetwork, params: ContainerParams, signal: AbortSignal) {
    const answer = await network.create(params, signal);
    if (typeof answer?.id !== 'string' || answer.id === '')
      throw new DeliveryError(
        'transient',
        `${network.platform.displayName} made a container without saying its id`,
      );
    return answer.id;
  }

  /** Never publishes before FINISHED: still processing is `not_ready`, an error a refusal. */
  private async finished(
    network: ContainerNetwork,
    id: string,
    since: number,
    signal: AbortSignal,
  ): Promise<void> {
    const state = await this.state(network, id, signal);
    const name = network.platform.displayName;
    switch (state.status) {
      case 'FINISHED':
      case 'PUBLISHED':
        return;
      case 'ERROR':
        throw graphRejected(
          network.platform,
          `${name} could not process the post's media: ${state.errorMessage ?? 'UNKNOWN'}`,
        );
      case 'EXPIRED':
        throw graphRejected(
          network.platform,
          `${name} let the post’s container expire before it was published`,
        );
      case 'IN_PROGRESS':
        if (Date.now() - since > PROCESSING_GIVE_UP_MS)
          throw graphRejected(
            network.platform,
            `${name} was still processing the post's media after ${PROCESSING_GIVE_UP_MS / 60_000} minutes`,
          );
        throw new DeliveryError(
          'not_ready',
          `${name} is still processing the media; publishing waits until it is finished`,
          notReadyWaitMs(Date.now() - since),
        );
    }
  }

  /** Published by an earlier try whose answer was lost: its post found among the newest. */
  private async published(
    network: ContainerNetwork,
    kept: ContainerProgress,
    step: DeliveryStep,
    signal: AbortSignal,
  ): Promise<PlatformMessage[]> {
    const recent = await network.recent(signal).catch(() => [] as ListedPost[]);
    const text = step.text ?? '';
    const made = kept.since - CLOCKS_APART_MS;
    const found = recent.find(
      (post) =>
        (post.text ?? '') === text &&
        typeof post.id === 'string' &&
        !(Date.parse(post.timestamp ?? '') < made),
    );
    if (!found?.id) return [{ id: kept.container!, url: null }];
    return [{ id: found.id, url: typeof found.permalink === 'string' ? found.permalink : null }];
  }
}

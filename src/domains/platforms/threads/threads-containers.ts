import type { ContainerState, ContainerWait } from '../meta/containers';
import { containerStatusOf, settledContainer } from '../meta/containers';
import type { MediaReach } from '../meta/media-reach';
import { DeliveryError, type DeliveryStep, type OutgoingMedia, type SendTarget } from '../platform';
import type { ContainerParams, ThreadsApi } from './threads-api';
import type { ThreadsCredentials } from './threads-credentials';
import { rejected } from './threads-errors';
import type { ThreadsProgress } from './threads-progress';

export const PROCESSING_GIVE_UP_MS = 20 * 60_000;
const NOT_READY_WAIT_MS = 30_000; // Meta's advice: a status read about once a minute.

/** Each container kept before the next call: a later try never makes what exists already. */
export class ThreadsContainers {
  constructor(
    private readonly api: ThreadsApi,
    private readonly reach: MediaReach,
    private readonly wait: ContainerWait,
  ) {}

  async ready(
    credentials: ThreadsCredentials,
    target: SendTarget,
    step: DeliveryStep,
    kept: ThreadsProgress | null,
    signal: AbortSignal,
  ): Promise<string> {
    let progress = kept ?? { since: Date.now() };
    if (!progress.container) {
      if (step.media.length > 0) await this.mediaReachable();
      if (step.media.length > 1)
        progress = await this.carouselItems(credentials, target, step, progress, signal);
      // A thread's item replies to the post recorded before it.
      const reply = target.replyTo ? { reply_to_id: target.replyTo.parent.id } : {};
      const params = { ...this.containerParams(step, progress.children), ...reply };
      const container = await this.make(credentials, params, signal);
      progress = { ...progress, container };
      await target.keep(JSON.stringify(progress));
    }
    await this.finished(credentials, progress.container!, progress.since, signal);
    return progress.container!;
  }

  async state(
    credentials: ThreadsCredentials,
    id: string,
    signal: AbortSignal,
  ): Promise<ContainerState> {
    const answer = await this.api.containerStatus(id, credentials.accessToken, signal);
    return {
      status: containerStatusOf(answer?.status),
      errorMessage: typeof answer?.error_message === 'string' ? answer.error_message : null,
    };
  }

  private async carouselItems(
    credentials: ThreadsCredentials,
    target: SendTarget,
    step: DeliveryStep,
    progress: ThreadsProgress,
    signal: AbortSignal,
  ): Promise<ThreadsProgress> {
    let children = progress.children;
    if (!children) {
      children = [];
      for (const medium of step.media)
        children.push(await this.make(credentials, this.itemParams(medium, true), signal));
      progress = { ...progress, children };
      await target.keep(JSON.stringify(progress));
    }
    for (const child of children) await this.finished(credentials, child, progress.since, signal);
    return progress;
  }

  private async make(
    credentials: ThreadsCredentials,
    params: ContainerParams,
    signal: AbortSignal,
  ) {
    const answer = await this.api.createContainer(
      credentials.userId,
      credentials.accessToken,
      params,
      signal,
    );
    if (typeof answer?.id !== 'string' || answer.id === '')
      throw new DeliveryError('transient', 'Threads made a container without saying its id');
    return answer.id;
  }

  /** Never publishes before FINISHED: still processing is `not_ready`, an error a refusal. */
  private async finished(
    credentials: ThreadsCredentials,
    id: string,
    since: number,
    signal: AbortSignal,
  ) {
    const state = await settledContainer(
      () => this.state(credentials, id, signal),
      this.wait,
      signal,
    );
    switch (state.status) {
      case 'FINISHED':
      case 'PUBLISHED':
        return;
      case 'ERROR':
        throw rejected(
          `Threads could not process the post's media: ${state.errorMessage ?? 'UNKNOWN'}`,
        );
      case 'EXPIRED':
        throw rejected('Threads let the post’s container expire before it was published');
      case 'IN_PROGRESS':
        if (Date.now() - since > PROCESSING_GIVE_UP_MS)
          throw rejected(
            `Threads was still processing the post's media after ${PROCESSING_GIVE_UP_MS / 60_000} minutes`,
          );
        throw new DeliveryError(
          'not_ready',
          'Threads is still processing the media; publishing waits until it is finished',
          NOT_READY_WAIT_MS,
        );
    }
  }

  private async mediaReachable(): Promise<void> {
    const reach = await this.reach.check();
    if (!reach.reachable)
      throw new DeliveryError(
        'rejected',
        `Threads cannot fetch this post's media: ${reach.reason}`,
        null,
        'media_url_not_public',
      );
  }

  private containerParams(step: DeliveryStep, children: string[] | undefined): ContainerParams {
    const text = step.text ? { text: step.text } : {};
    if (children) return { media_type: 'CAROUSEL', children: children.join(','), ...text };
    if (step.media.length === 1) return { ...this.itemParams(step.media[0], false), ...text };
    return { media_type: 'TEXT', ...text };
  }

  private itemParams(medium: OutgoingMedia, carouselItem: boolean): ContainerParams {
    const url = this.reach.urlOf(medium.storagePath);
    return {
      media_type: medium.type === 'video' ? 'VIDEO' : 'IMAGE',
      ...(medium.type === 'video' ? { video_url: url } : { image_url: url }),
      ...(medium.altText ? { alt_text: medium.altText } : {}),
      ...(carouselItem ? { is_carousel_item: 'true' } : {}),
    };
  }
}

import { Injectable } from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { MediaReach } from '../meta/media-reach';
import {
  DeliveryError,
  type DeliveryStep,
  type OutgoingMedia,
  type PlatformMessage,
  type PlatformPublisher,
  type SendTarget,
} from '../platform';
import { ThreadsApi } from './threads-api';
import { ThreadsContainers } from './threads-containers';
import { credentialsOf, type ThreadsCredentials } from './threads-credentials';
import { toDeliveryError } from './threads-errors';
import { readProgress, type ThreadsProgress } from './threads-progress';

const FIRST_READ_MS = 250;
const LONGEST_READ_GAP_MS = 4_000;

const QUOTA_RECHECK_MS = 10 * 60_000;
const CLOCKS_APART_MS = 60_000;

/** A try after an unknown outcome reads the kept container first: PUBLISHED is delivered. */
@Injectable()
export class ThreadsPublisher implements PlatformPublisher {
  readonly platform = 'threads';
  private readonly containers: ThreadsContainers;

  constructor(
    private readonly api: ThreadsApi,
    reach: MediaReach,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    const maxMs = Math.floor(config.publication.sendTimeoutMs / 2);
    this.containers = new ThreadsContainers(api, reach, {
      maxMs,
      firstGapMs: FIRST_READ_MS,
      longestGapMs: LONGEST_READ_GAP_MS,
    });
  }

  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    const kind = media.length === 0 ? 'text' : media.length === 1 ? 'single' : 'album';
    return [{ kind, text, media, cost: 1 }];
  }

  async send(secret: string, target: SendTarget, step: DeliveryStep): Promise<PlatformMessage[]> {
    const credentials = credentialsOf(secret);
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new DOMException('The send timed out', 'TimeoutError')),
      this.config.publication.sendTimeoutMs,
    );
    try {
      return await this.deliver(credentials, target, step, abort.signal);
    } catch (error) {
      throw toDeliveryError(error, abort.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  private async deliver(
    credentials: ThreadsCredentials,
    target: SendTarget,
    step: DeliveryStep,
    signal: AbortSignal,
  ): Promise<PlatformMessage[]> {
    let kept = readProgress(target.progress);
    if (kept?.container) {
      const state = await this.containers.state(credentials, kept.container, signal);
      if (state.status === 'PUBLISHED') return this.published(credentials, kept, step, signal);
      // Never published: a container that expired meanwhile is made again.
      if (state.status === 'EXPIRED') kept = null;
    }
    if (!kept?.container) await this.quotaLeft(credentials, signal);
    const container = await this.containers.ready(credentials, target, step, kept, signal);
    const answer = await this.api.publish(
      credentials.userId,
      credentials.accessToken,
      container,
      signal,
    );
    if (typeof answer?.id !== 'string' || answer.id === '')
      throw new DeliveryError('unconfirmed', 'Threads answered the publication without a post id');
    return [{ id: answer.id, url: await this.permalink(credentials, answer.id, signal) }];
  }

  /** The profile's own count, which also holds what it published elsewhere. */
  private async quotaLeft(credentials: ThreadsCredentials, signal: AbortSignal): Promise<void> {
    const answer = await this.api.publishingLimit(
      credentials.userId,
      credentials.accessToken,
      signal,
    );
    const [limit] = answer?.data ?? [];
    const used = limit?.quota_usage;
    const total = limit?.config?.quota_total;
    if (typeof used === 'number' && typeof total === 'number' && used >= total)
      throw new DeliveryError(
        'rate_limited',
        `The Threads profile has published ${used} of its ${total} posts in 24 hours`,
        QUOTA_RECHECK_MS,
      );
  }

  /** Published by an earlier try whose answer was lost: its post found among the newest. */
  private async published(
    credentials: ThreadsCredentials,
    kept: ThreadsProgress,
    step: DeliveryStep,
    signal: AbortSignal,
  ): Promise<PlatformMessage[]> {
    const recent = await this.api
      .recentPosts(credentials.userId, credentials.accessToken, signal)
      .catch(() => null);
    const text = step.text ?? '';
    const made = kept.since - CLOCKS_APART_MS;
    const found = recent?.data?.find(
      (post) =>
        (post.text ?? '') === text &&
        typeof post.id === 'string' &&
        !(Date.parse(post.timestamp ?? '') < made),
    );
    if (!found?.id) return [{ id: kept.container!, url: null }];
    return [{ id: found.id, url: typeof found.permalink === 'string' ? found.permalink : null }];
  }

  /** The post is out: a link that cannot be read now is no failure (null). */
  private async permalink(credentials: ThreadsCredentials, id: string, signal: AbortSignal) {
    try {
      const media = await this.api.media(id, credentials.accessToken, signal);
      return typeof media?.permalink === 'string' ? media.permalink : null;
    } catch {
      return null;
    }
  }
}

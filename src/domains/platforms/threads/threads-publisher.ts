import { Injectable } from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { ContainerFlow, refuseSpentQuota, type ContainerNetwork } from '../meta/container-flow';
import { graphSend } from '../meta/graph-failures';
import { MediaReach } from '../meta/media-reach';
import {
  type DeliveryStep,
  type OutgoingMedia,
  type PlatformMessage,
  type PlatformPublisher,
  type SendTarget,
} from '../platform';
import { ThreadsApi } from './threads-api';
import { credentialsOf, type ThreadsCredentials } from './threads-credentials';

/** Containers published exactly once (meta/container-flow.ts); a thread's item replies by id. */
@Injectable()
export class ThreadsPublisher implements PlatformPublisher {
  readonly platform = 'threads';
  private readonly flow: ContainerFlow;

  constructor(
    private readonly api: ThreadsApi,
    reach: MediaReach,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    this.flow = new ContainerFlow(reach);
  }

  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    return this.flow.plan(text, media);
  }

  async send(secret: string, target: SendTarget, step: DeliveryStep): Promise<PlatformMessage[]> {
    const network = this.network(credentialsOf(secret), target);
    return graphSend(network.platform, this.config.publication.sendTimeoutMs, (signal) =>
      this.flow.deliver(network, target, step, signal),
    );
  }

  private network(
    { userId, accessToken: token }: ThreadsCredentials,
    target: SendTarget,
  ): ContainerNetwork {
    const api = this.api.observing(target.observeRateLimit);
    return {
      platform: { name: 'threads', displayName: 'Threads' },
      create: (params, signal) => api.createContainer(userId, token, params, signal),
      status: async (id, signal) => {
        const answer = await api.containerStatus(id, token, signal);
        return { status: answer?.status, error: answer?.error_message };
      },
      publish: (container, signal) => api.publish(userId, token, container, signal),
      permalink: async (id, signal) => {
        const media = await api.media(id, token, signal);
        return typeof media?.permalink === 'string' ? media.permalink : null;
      },
      // The profile's own count, which also holds what it published elsewhere.
      quotaLeft: async (signal) =>
        refuseSpentQuota(await api.publishingLimit(userId, token, signal), 'Threads profile'),
      recent: async (signal) => (await api.recentPosts(userId, token, signal))?.data ?? [],
      itemParams: (medium, url, carouselItem) => ({
        media_type: medium.type === 'video' ? 'VIDEO' : 'IMAGE',
        ...(medium.type === 'video' ? { video_url: url } : { image_url: url }),
        ...(medium.altText ? { alt_text: medium.altText } : {}),
        ...(carouselItem ? { is_carousel_item: 'true' } : {}),
      }),
      postParams: (step, medium, children, target) => ({
        ...(children
          ? { media_type: 'CAROUSEL', children: children.join(',') }
          : (medium ?? { media_type: 'TEXT' })),
        ...(step.text ? { text: step.text } : {}),
        // A thread's item replies to the post recorded before it.
        ...(target.replyTo ? { reply_to_id: target.replyTo.parent.id } : {}),
      }),
    };
  }
}

import { Injectable } from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { ContainerFlow, refuseSpentQuota, type ContainerNetwork } from '../meta/container-flow';
import { channelToken } from '../facebook/facebook-credentials';
import { graphSend } from '../meta/graph-failures';
import { MediaReach } from '../meta/media-reach';
import {
  DeliveryError,
  type DeliveryStep,
  type OutgoingMedia,
  type PlatformMessage,
  type PlatformPublisher,
  type SendTarget,
} from '../platform';
import { InstagramApi } from './instagram-api';

const INSTAGRAM = { name: 'instagram', displayName: 'Instagram' } as const;

/** Containers published exactly once (meta/container-flow.ts); the first comment never twice. */
@Injectable()
export class InstagramPublisher implements PlatformPublisher {
  readonly platform = 'instagram';
  private readonly flow: ContainerFlow;

  constructor(
    private readonly api: InstagramApi,
    reach: MediaReach,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    this.flow = new ContainerFlow(reach);
  }

  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    return this.flow.plan(text, media);
  }

  async send(secret: string, target: SendTarget, step: DeliveryStep): Promise<PlatformMessage[]> {
    const { token } = channelToken(secret, target.chatId, 'Instagram');
    const api = this.api.observing(target.observeRateLimit);
    return graphSend(INSTAGRAM, this.config.publication.sendTimeoutMs, async (signal) =>
      target.replyTo
        ? [await this.comment(api, token, target, step, signal)]
        : this.flow.deliver(this.network(api, target.chatId, token), target, step, signal),
    );
  }

  /** A retry first reads the post's comments: one with the same text is the earlier try's. */
  private async comment(
    api: InstagramApi,
    token: string,
    target: SendTarget,
    step: DeliveryStep,
    signal: AbortSignal,
  ): Promise<PlatformMessage> {
    const mediaId = target.replyTo!.root.id;
    const text = step.text ?? '';
    if (target.retry) {
      const made = await api.comments(mediaId, token, signal);
      const found = made?.data?.find((comment) => comment.text === text && comment.id);
      if (found?.id) return { id: found.id, url: null };
    }
    const made = await api.post(
      'comment',
      `/${encodeURIComponent(mediaId)}/comments`,
      { message: text },
      token,
      signal,
    );
    if (typeof made?.id !== 'string' || made.id === '')
      throw new DeliveryError('unconfirmed', 'Instagram answered the comment without its id');
    return { id: made.id, url: null };
  }

  private network(api: InstagramApi, igUserId: string, token: string): ContainerNetwork {
    return {
      platform: INSTAGRAM,
      create: (params, signal) => api.createContainer(igUserId, params, token, signal),
      status: async (id, signal) => {
        const answer = await api.containerStatus(id, token, signal);
        return { status: answer?.status_code, error: answer?.status };
      },
      publish: (container, signal) => api.publishContainer(igUserId, container, token, signal),
      permalink: async (id, signal) => {
        const media = await api.permalink(id, token, signal);
        return typeof media?.permalink === 'string' ? media.permalink : null;
      },
      quotaLeft: async (signal) =>
        refuseSpentQuota(await api.publishingLimit(igUserId, token, signal), 'Instagram account'),
      recent: (signal) => api.recentMedia(igUserId, token, signal),
      itemParams: (medium, url, carouselItem) => ({
        ...(medium.type === 'video'
          ? { media_type: carouselItem ? 'VIDEO' : 'REELS', video_url: url }
          : { image_url: url }),
        ...(medium.altText && medium.type === 'image' ? { alt_text: medium.altText } : {}),
        ...(carouselItem ? { is_carousel_item: 'true' } : {}),
      }),
      postParams: (step, medium, children) => ({
        ...(children ? { media_type: 'CAROUSEL', children: children.join(',') } : medium),
        ...(step.text ? { caption: step.text } : {}),
      }),
    };
  }
}

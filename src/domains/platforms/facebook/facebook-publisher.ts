import { Injectable } from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { channelToken } from './facebook-credentials';
import { graphDeliveryError, graphSend } from '../meta/graph-failures';
import { MediaReach } from '../meta/media-reach';
import {
  DeliveryError,
  type DeliveryStep,
  type OutgoingMedia,
  type PlatformMessage,
  type PlatformPublisher,
  type SendTarget,
} from '../platform';
import { FacebookApi } from './facebook-api';
import { facebookPostUrl } from './facebook-limits';

const FACEBOOK = { name: 'facebook', displayName: 'Facebook' } as const;
const LINK = /\bhttps?:\/\/[^\s<>"]+/i;

/** The page a send goes to, and the Graph API reading its answers' usage into the pacing. */
interface Page {
  id: string;
  token: string;
  api: FacebookApi;
}

/** Photos of an album made so far (unpublished, harmless alone), kept for a later try. */
interface AlbumProgress {
  photos: string[];
}

/** Meta takes no idempotency key: an unanswered publishing call is `delivery_unconfirmed`. */
@Injectable()
export class FacebookPublisher implements PlatformPublisher {
  readonly platform = 'facebook';

  constructor(
    private readonly api: FacebookApi,
    private readonly reach: MediaReach,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    if (media.length === 0) return [{ kind: 'text', text, media, cost: 1 }];
    if (media.length === 1) return [{ kind: 'single', text, media, cost: 1 }];
    return [{ kind: 'album', text, media, cost: media.length + 1 }];
  }

  async send(secret: string, target: SendTarget, step: DeliveryStep): Promise<PlatformMessage[]> {
    const { pageId, token } = channelToken(secret, target.chatId, 'Facebook');
    const page = { id: pageId, token, api: this.api.observing(target.observeRateLimit) };
    return graphSend(FACEBOOK, this.config.publication.sendTimeoutMs, async (signal) => [
      target.replyTo
        ? await this.comment(page, target.replyTo.root.id, step, signal)
        : await this.publish(page, target, step, signal),
    ]);
  }

  private async publish(
    page: Page,
    target: SendTarget,
    step: DeliveryStep,
    signal: AbortSignal,
  ): Promise<PlatformMessage> {
    const text = step.text ?? '';
    const path = (edge: string) => `/${encodeURIComponent(page.id)}/${edge}`;
    if (step.media.length > 0) await this.reach.refuseUnreachable('Facebook');
    const [first] = step.media;
    if (!first) {
      const link = LINK.exec(text)?.[0];
      const made = await page.api.post(
        'feed',
        path('feed'),
        { message: text, link },
        page.token,
        signal,
      );
      return this.message(made?.id, 'the post');
    }
    if (first.type === 'video') {
      const made = await page.api.post(
        'video',
        path('videos'),
        { file_url: this.reach.urlOf(first.storagePath), description: text || undefined },
        page.token,
        signal,
      );
      return this.message(made?.id, 'the video');
    }
    if (step.media.length === 1) {
      const made = await page.api.post(
        'photo',
        path('photos'),
        { ...this.photoParams(first), caption: text || undefined },
        page.token,
        signal,
      );
      return this.message(made?.post_id ?? made?.id, 'the photo');
    }
    const photos = await this.albumPhotos(page, target, step, signal);
    const made = await page.api.post(
      'feed',
      path('feed'),
      {
        message: text || undefined,
        attached_media: JSON.stringify(photos.map((id) => ({ media_fbid: id }))),
      },
      page.token,
      signal,
    );
    return this.message(made?.id, 'the post');
  }

  /** Unpublished photos, each kept as made: an answer lost here is retried, nothing is out yet. */
  private async albumPhotos(
    page: Page,
    target: SendTarget,
    step: DeliveryStep,
    signal: AbortSignal,
  ): Promise<string[]> {
    const kept = readAlbum(target.progress);
    if (kept && kept.photos.length === step.media.length) return kept.photos;
    const photos: string[] = [];
    try {
      for (const medium of step.media) {
        const made = await page.api.post(
          'photo',
          `/${encodeURIComponent(page.id)}/photos`,
          { ...this.photoParams(medium), published: 'false' },
          page.token,
          signal,
        );
        if (typeof made?.id !== 'string' || made.id === '')
          throw new DeliveryError('transient', 'Facebook made a photo without saying its id');
        photos.push(made.id);
      }
    } catch (error) {
      const failure = graphDeliveryError(FACEBOOK, error, signal);
      throw failure.failure === 'unconfirmed'
        ? new DeliveryError('transient', `${failure.message} (an unpublished photo; tried again)`)
        : failure;
    }
    await target.keep(JSON.stringify({ photos } satisfies AlbumProgress));
    return photos;
  }

  private async comment(
    page: Page,
    postId: string,
    step: DeliveryStep,
    signal: AbortSignal,
  ): Promise<PlatformMessage> {
    const made = await page.api.post(
      'comment',
      `/${encodeURIComponent(postId)}/comments`,
      { message: step.text ?? '' },
      page.token,
      signal,
    );
    if (typeof made?.id !== 'string' || made.id === '')
      throw new DeliveryError('unconfirmed', 'Facebook answered the comment without its id');
    return { id: made.id, url: null };
  }

  private photoParams(medium: OutgoingMedia): Record<string, string | undefined> {
    return {
      url: this.reach.urlOf(medium.storagePath),
      alt_text_custom: medium.altText ?? undefined,
    };
  }

  private message(id: string | undefined, what: string): PlatformMessage {
    if (typeof id !== 'string' || id === '')
      throw new DeliveryError('unconfirmed', `Facebook answered ${what} without its id`);
    return { id, url: facebookPostUrl(id) };
  }
}

function readAlbum(kept: string | null): AlbumProgress | null {
  if (kept === null) return null;
  try {
    const progress = JSON.parse(kept) as Partial<AlbumProgress>;
    return Array.isArray(progress.photos) && progress.photos.every((id) => typeof id === 'string')
      ? { photos: progress.photos }
      : null;
  } catch {
    return null;
  }
}

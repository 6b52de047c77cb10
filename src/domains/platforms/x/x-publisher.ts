import { Inject, Injectable, Optional } from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { STORAGE_DRIVER, type StorageDriver } from '../../../infrastructure/storage/storage-driver';
import {
  DeliveryError,
  type DeliveryStep,
  type OutgoingMedia,
  type PlatformMessage,
  type PlatformPublisher,
  type SendTarget,
} from '../platform';
import { onePost, refuseUntellableRetry, storedBytes } from '../one-post';
import { XApi, XApiError, XTransportError, type XPost } from './x-api';
import { credentialsOf, type XCredentials } from './x-credentials';

const RECENT_POSTS = 5;

/** No idempotency key: a retry meeting X's duplicate refusal finds the post the first try made. */
@Injectable()
export class XPublisher implements PlatformPublisher {
  readonly platform = 'x';

  constructor(
    private readonly api: XApi,
    @InjectConfig() private readonly config: AppConfig,
    @Optional() @Inject(STORAGE_DRIVER) private readonly storage?: StorageDriver,
  ) {}

  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    return onePost(text, media);
  }

  async send(secret: string, target: SendTarget, step: DeliveryStep): Promise<PlatformMessage[]> {
    const credentials = credentialsOf(secret);
    const text = step.text ?? '';
    refuseUntellableRetry('X', target, step);
    const timeoutMs = this.config.publication.sendTimeoutMs;
    try {
      const mediaIds: string[] = [];
      for (const medium of step.media)
        mediaIds.push(await this.upload(credentials, medium, timeoutMs));
      const id = await this.api.createPost(
        credentials.accessToken,
        { text, mediaIds, replyTo: target.replyTo?.parent.id ?? null },
        timeoutMs,
        target.observeRateLimit,
      );
      return [{ id }];
    } catch (error) {
      if (error instanceof XApiError && error.duplicate && target.retry) {
        const made = await this.madeByEarlierTry(credentials, text);
        if (made) return [{ id: made.id }];
      }
      throw toDeliveryError(error);
    }
  }

  /** Nothing is public before the post, so an unanswered upload is simply made again. */
  private async upload(
    credentials: XCredentials,
    medium: OutgoingMedia,
    timeoutMs: number,
  ): Promise<string> {
    const bytes = await storedBytes(this.storage, medium);
    try {
      const id = await this.api.uploadImage(credentials.accessToken, bytes, timeoutMs);
      if (medium.altText)
        await this.api.describeImage(credentials.accessToken, id, medium.altText, timeoutMs);
      return id;
    } catch (error) {
      if (error instanceof XTransportError)
        throw new DeliveryError('transient', `Uploading ${medium.filename} to X got no answer`);
      throw error;
    }
  }

  /** The user's newest post whose text, its t.co links expanded, is this one's. */
  private async madeByEarlierTry(credentials: XCredentials, text: string): Promise<XPost | null> {
    let posts: XPost[];
    try {
      posts = await this.api.recentPosts(credentials.accessToken, credentials.userId, RECENT_POSTS);
    } catch (error) {
      throw toDeliveryError(error);
    }
    return posts.find((post) => sameText(post, text)) ?? null;
  }
}

/** X shortens every link to t.co, adds one for attached images, and escapes `&`, `<` and `>`. */
export function sameText(post: XPost, text: string): boolean {
  let shown = post.text;
  for (const link of post.entities?.urls ?? []) {
    const expanded = link.expandedUrl ?? link.url;
    const attached = /^https:\/\/(x|twitter)\.com\/[^/]+\/status\/\d+\/(photo|video)\/\d+$/;
    shown = shown.replace(link.url, attached.test(expanded) ? '' : expanded);
  }
  shown = shown.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  return shown.trim() === text.trim();
}

export function toDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof XApiError) {
    if (error.status === 429)
      return new DeliveryError('rate_limited', error.message, error.retryAfterMs ?? 60_000);
    if (error.status === 401) return new DeliveryError('unauthorized', error.message);
    if (error.status >= 500) return new DeliveryError('transient', error.message);
    return new DeliveryError('rejected', `X refused the post: ${error.reason}`, null, 'x_rejected');
  }
  if (error instanceof XTransportError)
    return error.sent
      ? new DeliveryError(
          'unconfirmed',
          'The post went out but no answer came back; it may or may not have been made',
        )
      : new DeliveryError('transient', error.message);
  return new DeliveryError('transient', (error as Error).message ?? 'Unknown error');
}

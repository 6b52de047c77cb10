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
import { LinkedInApi, LinkedInApiError, LinkedInTransportError } from './linkedin-api';
import { credentialsOf, type LinkedInCredentials } from './linkedin-credentials';
import { littleText } from './linkedin-text';

/** The scopes that let an app read an author's posts (most apps are not granted them). */
const READS_POSTS = ['r_member_social', 'r_organization_social'];

/** No idempotency key: a retry meeting LinkedIn's duplicate refusal takes the post it names. */
@Injectable()
export class LinkedInPublisher implements PlatformPublisher {
  readonly platform = 'linkedin';

  constructor(
    private readonly api: LinkedInApi,
    @InjectConfig() private readonly config: AppConfig,
    @Optional() @Inject(STORAGE_DRIVER) private readonly storage?: StorageDriver,
  ) {}

  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    return onePost(text, media);
  }

  async send(secret: string, target: SendTarget, step: DeliveryStep): Promise<PlatformMessage[]> {
    const credentials = credentialsOf(secret);
    const commentary = littleText(step.text ?? '');
    refuseUntellableRetry('LinkedIn', target, step);
    const timeoutMs = this.config.publication.sendTimeoutMs;
    // A comment's text is plain: only a post's commentary is little text.
    if (target.replyTo)
      return [await this.comment(credentials, target, step.text ?? '', timeoutMs)];
    try {
      const images: { id: string; altText?: string }[] = [];
      for (const medium of step.media) {
        const id = await this.upload(credentials, target.chatId, medium, timeoutMs);
        images.push(medium.altText ? { id, altText: medium.altText } : { id });
      }
      const urn = await this.api.createPost(
        credentials.accessToken,
        {
          author: target.chatId,
          commentary,
          visibility: 'PUBLIC',
          distribution: {
            feedDistribution: 'MAIN_FEED',
            targetEntities: [],
            thirdPartyDistributionChannels: [],
          },
          lifecycleState: 'PUBLISHED',
          isReshareDisabledByAuthor: false,
          ...content(images),
        },
        timeoutMs,
      );
      return [{ id: urn }];
    } catch (error) {
      if (error instanceof LinkedInApiError && error.duplicateOf !== null && target.retry)
        return [{ id: await this.madeByEarlierTry(credentials, target.chatId, commentary, error) }];
      throw toDeliveryError(error);
    }
  }

  /** The first comment; a retry first looks for the one an earlier try made, where it may. */
  private async comment(
    credentials: LinkedInCredentials,
    target: SendTarget,
    text: string,
    timeoutMs: number,
  ): Promise<PlatformMessage> {
    const post = target.replyTo!.root.id;
    try {
      if (target.retry) {
        if (!credentials.scopes.some((scope) => READS_POSTS.includes(scope)))
          throw new DeliveryError(
            'rejected',
            'An earlier try of this comment may have reached LinkedIn, which cannot be asked; publish again to retry',
            null,
            'delivery_unconfirmed',
          );
        const made = (await this.api.comments(credentials.accessToken, post)).find(
          (c) => c.actor === target.chatId && c.message?.text === text && c.$URN,
        );
        if (made) return { id: made.$URN! };
      }
      return {
        id: await this.api.comment(credentials.accessToken, post, target.chatId, text, timeoutMs),
      };
    } catch (error) {
      throw toDeliveryError(error);
    }
  }

  /** Nothing is public before the post, so an unanswered upload is simply made again. */
  private async upload(
    credentials: LinkedInCredentials,
    owner: string,
    medium: OutgoingMedia,
    timeoutMs: number,
  ): Promise<string> {
    const bytes = await storedBytes(this.storage, medium);
    try {
      const { uploadUrl, image } = await this.api.initializeUpload(
        credentials.accessToken,
        owner,
        timeoutMs,
      );
      await this.api.upload(credentials.accessToken, uploadUrl, bytes, timeoutMs);
      return image;
    } catch (error) {
      if (error instanceof LinkedInTransportError)
        throw new DeliveryError(
          'transient',
          `Uploading ${medium.filename} to LinkedIn got no answer`,
        );
      throw error;
    }
  }

  /** The post the duplicate refusal names; else, where the app may read posts, the author's. */
  private async madeByEarlierTry(
    credentials: LinkedInCredentials,
    author: string,
    commentary: string,
    refusal: LinkedInApiError,
  ): Promise<string> {
    if (refusal.duplicateOf) return refusal.duplicateOf;
    if (credentials.scopes.some((scope) => READS_POSTS.includes(scope))) {
      const posts = await this.api
        .postsBy(credentials.accessToken, author, 10)
        .catch((error: unknown) => Promise.reject(toDeliveryError(error)));
      const made = posts.find((post) => post.commentary === commentary);
      if (made) return made.id;
    }
    throw new DeliveryError(
      'rejected',
      'LinkedIn says an earlier try of this post arrived but does not name it; it is not posted again',
      null,
      'delivery_unconfirmed',
    );
  }
}

function content(images: { id: string; altText?: string }[]): object {
  if (images.length === 0) return {};
  if (images.length === 1) return { content: { media: images[0] } };
  return { content: { multiImage: { images } } };
}

export function toDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof LinkedInApiError) {
    if (error.status === 429)
      return new DeliveryError('rate_limited', error.message, error.retryAfterMs ?? 60_000);
    if (error.status === 401) return new DeliveryError('unauthorized', error.message);
    if (error.status >= 500) return new DeliveryError('transient', error.message);
    return new DeliveryError(
      'rejected',
      `LinkedIn refused the post: ${error.reason}`,
      null,
      'linkedin_rejected',
    );
  }
  if (error instanceof LinkedInTransportError)
    return error.sent
      ? new DeliveryError(
          'unconfirmed',
          'The post went out but no answer came back; it may or may not have been made',
        )
      : new DeliveryError('transient', error.message);
  return new DeliveryError('transient', (error as Error).message ?? 'Unknown error');
}

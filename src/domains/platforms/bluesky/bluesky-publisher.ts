import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { AppError } from '../../../http/errors/error-codes';
import { HostUnresolvedError } from '../../../infrastructure/outbound/outbound-dispatchers';
import { STORAGE_DRIVER, type StorageDriver } from '../../../infrastructure/storage/storage-driver';
import {
  DeliveryError,
  type DeliveryStep,
  type OutgoingMedia,
  type PlatformMessage,
  type PlatformPublisher,
  type SendTarget,
} from '../platform';
import { openStoredStream } from '../stored-file';
import {
  type BlueskyCredentials,
  type BlueskySession,
  readCredentials,
} from './bluesky-credentials';
import { BlueskySessions, isAuthFailure } from './bluesky-sessions';
import { linkFacets } from './bluesky-text';
import { BlueskyXrpc, XrpcError, XrpcTransportError } from './bluesky-xrpc';

const POST_COLLECTION = 'app.bsky.feed.post';

interface BlobRef {
  $type: 'blob';
  ref: { $link: string };
  mimeType: string;
  size: number;
}

/**
 * One record per post: its images uploaded with uploadBlob, then createRecord with the record key
 * chosen when the target was stored, link facets in UTF-8 bytes and the images as an embed. A send
 * that may have arrived before reads that record first: found means delivered.
 */
@Injectable()
export class BlueskyPublisher implements PlatformPublisher {
  readonly platform = 'bluesky';

  constructor(
    private readonly xrpc: BlueskyXrpc,
    private readonly sessions: BlueskySessions,
    @InjectConfig() private readonly config: AppConfig,
    @Optional() @Inject(STORAGE_DRIVER) private readonly storage?: StorageDriver,
  ) {}

  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    const kind = media.length === 0 ? 'text' : media.length === 1 ? 'single' : 'album';
    return [{ kind, text, media, cost: 1 }];
  }

  async send(secret: string, target: SendTarget, step: DeliveryStep): Promise<PlatformMessage[]> {
    try {
      const credentials = readCredentials(secret);
      const post = (session: BlueskySession) => this.post(credentials, session, target, step);
      const session = await this.sessions.current(target.accountId, credentials);
      try {
        return await post(session);
      } catch (error) {
        if (!isAuthFailure(error)) throw error;
        return await post(await this.sessions.renew(target.accountId, credentials, session));
      }
    } catch (error) {
      throw toDeliveryError(error);
    }
  }

  private async post(
    credentials: BlueskyCredentials,
    session: BlueskySession,
    target: SendTarget,
    step: DeliveryStep,
  ): Promise<PlatformMessage[]> {
    const call = { service: credentials.service, token: session.accessJwt };
    if (target.retry) {
      const found = await this.existing(call, target);
      if (found) return [found];
    }
    const images: { alt: string; image: BlobRef }[] = [];
    for (const medium of step.media)
      images.push({ alt: medium.filename, image: await this.upload(call, medium) });
    const text = step.text ?? '';
    const facets = linkFacets(text);
    const record = {
      $type: POST_COLLECTION,
      text,
      createdAt: new Date().toISOString(),
      ...(facets.length > 0 ? { facets } : {}),
      ...(images.length > 0 ? { embed: { $type: 'app.bsky.embed.images', images } } : {}),
    };
    try {
      const created = await this.xrpc.call<{ uri: string; cid: string }>({
        ...call,
        nsid: 'com.atproto.repo.createRecord',
        json: { repo: target.chatId, collection: POST_COLLECTION, rkey: target.tid, record },
        timeoutMs: this.config.publication.sendTimeoutMs,
      });
      return [{ id: created.uri }];
    } catch (error) {
      // The record key is taken: an earlier try made the record after all.
      if (error instanceof XrpcError && error.status === 400 && /exist/i.test(error.description)) {
        const found = await this.existing(call, target);
        if (found) return [found];
      }
      throw error;
    }
  }

  /** The record an earlier try made, or null when there is none. */
  private async existing(
    call: { service: string | null; token: string },
    target: SendTarget,
  ): Promise<PlatformMessage | null> {
    try {
      const record = await this.xrpc.call<{ uri: string }>({
        ...call,
        nsid: 'com.atproto.repo.getRecord',
        params: { repo: target.chatId, collection: POST_COLLECTION, rkey: target.tid },
      });
      return { id: record.uri };
    } catch (error) {
      if (error instanceof XrpcError && error.status === 400 && error.error === 'RecordNotFound')
        return null;
      throw error;
    }
  }

  private async upload(
    call: { service: string | null; token: string },
    medium: OutgoingMedia,
  ): Promise<BlobRef> {
    const opened: Readable[] = [];
    try {
      const body = await openStoredStream(this.storage, medium, opened);
      const answer = await this.xrpc.call<{ blob: BlobRef }>({
        ...call,
        nsid: 'com.atproto.repo.uploadBlob',
        bytes: { body, contentType: medium.mimeType, length: medium.sizeBytes },
        timeoutMs: this.config.publication.sendTimeoutMs,
      });
      return answer.blob;
    } finally {
      for (const stream of opened) stream.destroy();
    }
  }
}

/** What a Bluesky failure means for the target. */
function toDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof XrpcError) {
    const what = `Bluesky ${error.status} ${error.error}: ${error.description}`;
    if (error.status === 429) return new DeliveryError('rate_limited', what, error.retryAfterMs);
    if (isAuthFailure(error)) return new DeliveryError('unauthorized', what);
    if (error.status >= 500) return new DeliveryError('transient', what);
    return new DeliveryError('rejected', what, null, 'bluesky_rejected');
  }
  if (error instanceof XrpcTransportError)
    return error.sent
      ? new DeliveryError(
          'unconfirmed',
          'The send went out but no answer came back; it may or may not have been delivered',
        )
      : new DeliveryError('transient', error.message);
  if (error instanceof HostUnresolvedError) return new DeliveryError('transient', error.message);
  if (error instanceof AppError)
    return new DeliveryError('rejected', error.message, null, 'bluesky_rejected');
  return new DeliveryError('transient', (error as Error).message ?? 'Unknown error');
}

import { type BlobRef } from '@atproto/api';
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
  type ReplyTarget,
  type SendTarget,
} from '../platform';
import { imageDimensions } from '../../media/image-dimensions';
import { openStoredStream } from '../stored-file';
import {
  type BlueskyCredentials,
  type BlueskySession,
  readCredentials,
} from './bluesky-credentials';
import { BlueskySessions, isAuthFailure } from './bluesky-sessions';
import { textFacets } from './bluesky-text';
import { BlueskyXrpc, XrpcError, type XrpcTarget, XrpcTransportError } from './bluesky-xrpc';
import { msUntilReset, rateLimitReport, type RateLimitReport } from '../rate-limit-report';
import { BLUESKY_POINTS_PER_RECORD } from './bluesky-pacing';

const POST_COLLECTION = 'app.bsky.feed.post';

interface EmbeddedImage {
  alt: string;
  image: BlobRef;
  aspectRatio?: { width: number; height: number };
}

/** One record per post, its key chosen at storage, so a retry reads what an earlier try made. */
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
    const call: XrpcTarget = { service: credentials.service, token: session.accessJwt };
    if (target.retry) {
      const found = await this.existing(credentials.service, target);
      if (found) return [found];
    }
    const images: EmbeddedImage[] = [];
    for (const medium of step.media) images.push(await this.upload(call, medium));
    const text = step.text ?? '';
    const facets = await textFacets(text, (handle) => this.resolve(credentials.service, handle));
    const record = {
      $type: POST_COLLECTION,
      text,
      createdAt: new Date().toISOString(),
      ...(facets.length > 0 ? { facets } : {}),
      ...(images.length > 0 ? { embed: { $type: 'app.bsky.embed.images', images } } : {}),
      ...(target.replyTo ? { reply: replyRefs(target.replyTo) } : {}),
    };
    try {
      const created = await this.xrpc.call(
        {
          ...call,
          timeoutMs: this.config.publication.sendTimeoutMs,
          onHeaders: (headers) => {
            const report = writePointsReport(headers);
            if (report) target.observeRateLimit(report);
          },
        },
        (c, o) =>
          c.com.atproto.repo.createRecord(
            { repo: target.chatId, collection: POST_COLLECTION, rkey: target.tid, record },
            o,
          ),
      );
      return [{ id: created.uri, cid: created.cid }];
    } catch (error) {
      // Whatever the refusal (a taken key is a 500), an earlier try may have made the record.
      if (error instanceof XrpcError) {
        const found = await this.existing(credentials.service, target).catch(() => null);
        if (found) return [found];
      }
      throw error;
    }
  }

  /** Null when there is none (a public read: no token). */
  private async existing(
    service: string | null,
    target: SendTarget,
  ): Promise<PlatformMessage | null> {
    try {
      const record = await this.xrpc.call({ service }, (c, o) =>
        c.com.atproto.repo.getRecord(
          { repo: target.chatId, collection: POST_COLLECTION, rkey: target.tid },
          o,
        ),
      );
      return { id: record.uri, ...(record.cid ? { cid: record.cid } : {}) };
    } catch (error) {
      if (error instanceof XrpcError && error.status === 400 && error.error === 'RecordNotFound')
        return null;
      throw error;
    }
  }

  /** Asked of the account's own service; null when it has none. */
  private async resolve(service: string | null, handle: string): Promise<string | null> {
    try {
      const answer = await this.xrpc.call({ service }, (c, o) =>
        c.com.atproto.identity.resolveHandle({ handle }, o),
      );
      return answer.did;
    } catch (error) {
      if (error instanceof XrpcError && error.status < 500) return null;
      throw error;
    }
  }

  /** Read whole (at most 2,000,000 bytes) for its aspect ratio and a known upload length. */
  private async upload(call: XrpcTarget, medium: OutgoingMedia): Promise<EmbeddedImage> {
    const opened: Readable[] = [];
    let bytes: Buffer;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of await openStoredStream(this.storage, medium, opened))
        chunks.push(chunk as Buffer);
      bytes = Buffer.concat(chunks);
    } finally {
      for (const stream of opened) stream.destroy();
    }
    const answer = await this.xrpc.call(
      { ...call, timeoutMs: this.config.publication.sendTimeoutMs },
      (c, o) => c.com.atproto.repo.uploadBlob(bytes, { ...o, encoding: medium.mimeType }),
    );
    const size = imageDimensions(bytes);
    return {
      alt: medium.altText ?? '',
      image: answer.blob,
      ...(size ? { aspectRatio: size } : {}),
    };
  }
}

/** Strong refs as recorded: a parent without its cid cannot be named, so nothing is sent. */
function replyRefs({ root, parent }: ReplyTarget) {
  const ref = ({ id, cid }: ReplyTarget['root']) => {
    if (!cid)
      throw new DeliveryError(
        'rejected',
        `The message ${id} was recorded without its cid; a reply cannot name it`,
        null,
        'bluesky_rejected',
      );
    return { uri: id, cid };
  };
  return { root: ref(root), parent: ref(parent) };
}

function toDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof XrpcError) {
    const what = `Bluesky ${error.status} ${error.error}: ${error.description}`;
    // A success the client cannot read (not JSON, no uri) may have made the record: read it by key.
    if (error.status < 100 || (error.status >= 200 && error.status < 300))
      return new DeliveryError('unconfirmed', `${what}; the record may or may not have been made`);
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

/** The account's write points left this hour (`ratelimit-*`), as records. */
function writePointsReport(headers: Record<string, string | undefined>): RateLimitReport | null {
  const points = Number(headers['ratelimit-remaining']);
  if (!Number.isFinite(points)) return null;
  return rateLimitReport(
    'account',
    String(Math.floor(points / BLUESKY_POINTS_PER_RECORD)),
    msUntilReset(headers['ratelimit-reset'], headers['date']),
  );
}

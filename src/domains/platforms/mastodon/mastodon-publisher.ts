import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { FormData } from 'undici';
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
import type { RateLimitObserver } from '../rate-limit-report';
import { openStoredFile } from '../stored-file';
import {
  MastodonApi,
  MastodonApiError,
  MastodonTransportError,
  type MastodonCredentials,
} from './mastodon-api';
import { credentialsOf } from './mastodon-credentials';

export const MEDIA_PROCESSING_MAX_MS = 30_000;
/** Then twice the wait each time, up to the longest gap. */
const FIRST_POLL_MS = 250;
const LONGEST_POLL_GAP_MS = 2_000;

/** Media uploaded and polled, then the status with the target's key as Idempotency-Key. */
@Injectable()
export class MastodonPublisher implements PlatformPublisher {
  readonly platform = 'mastodon';

  constructor(
    private readonly api: MastodonApi,
    @InjectConfig() private readonly config: AppConfig,
    @Optional() @Inject(STORAGE_DRIVER) private readonly storage?: StorageDriver,
  ) {}

  /** One status, whatever it holds (the limits keep it within one). */
  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    const kind = media.length === 0 ? 'text' : media.length === 1 ? 'single' : 'album';
    // Each medium's upload and the status count in the token's requests window.
    return [{ kind, text, media, cost: 1, calls: 1 + media.length }];
  }

  async send(secret: string, target: SendTarget, step: DeliveryStep): Promise<PlatformMessage[]> {
    const credentials = credentialsOf(secret);
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new DOMException('The send timed out', 'TimeoutError')),
      this.config.publication.sendTimeoutMs,
    );
    const opened: Readable[] = [];
    try {
      const mediaIds: string[] = [];
      for (const medium of step.media)
        mediaIds.push(
          await this.upload(credentials, medium, abort.signal, opened, target.observeRateLimit),
        );
      const status = await this.api.postStatus(
        credentials,
        {
          status: step.text ?? '',
          media_ids: mediaIds,
          visibility: 'public',
          ...(target.replyTo ? { in_reply_to_id: target.replyTo.parent.id } : {}),
        },
        target.key,
        abort.signal,
        target.observeRateLimit,
      );
      const id: unknown = status?.id;
      if (!(typeof id === 'string' && id !== '') && !Number.isSafeInteger(id))
        throw new DeliveryError(
          'unconfirmed',
          'Mastodon answered success without a status id; the status may or may not have been made',
        );
      return [{ id: String(id), url: typeof status.url === 'string' ? status.url : null }];
    } catch (error) {
      throw toDeliveryError(error);
    } finally {
      clearTimeout(timer);
      // A failed request may leave a file unread; never leak its descriptor.
      for (const stream of opened) stream.destroy();
    }
  }

  /** Nothing is public before the status, so an unanswered upload is simply made again. */
  private async upload(
    credentials: MastodonCredentials,
    medium: OutgoingMedia,
    signal: AbortSignal,
    opened: Readable[],
    observe: RateLimitObserver,
  ): Promise<string> {
    try {
      const form = new FormData();
      form.append('file', await openStoredFile(this.storage, medium, opened));
      if (medium.altText) form.append('description', medium.altText);
      const uploaded = await this.api.uploadMedia(credentials, form, signal);
      if (uploaded.status === 202)
        await this.untilProcessed(credentials, uploaded.body.id, medium, signal, observe);
      return String(uploaded.body.id);
    } catch (error) {
      if (error instanceof MastodonTransportError || (signal.aborted && !isApiError(error)))
        throw new DeliveryError(
          'transient',
          `Uploading ${medium.filename} to Mastodon got no answer in time`,
        );
      throw error;
    }
  }

  private async untilProcessed(
    credentials: MastodonCredentials,
    id: string,
    medium: OutgoingMedia,
    signal: AbortSignal,
    observe: RateLimitObserver,
  ): Promise<void> {
    const until = Date.now() + MEDIA_PROCESSING_MAX_MS;
    for (let gap = FIRST_POLL_MS; ; gap = Math.min(gap * 2, LONGEST_POLL_GAP_MS)) {
      if (Date.now() + gap > until)
        throw new DeliveryError(
          'transient',
          `Mastodon was still processing ${medium.filename} after ${MEDIA_PROCESSING_MAX_MS / 1000} s`,
        );
      await sleep(gap, undefined, { signal });
      const answer = await this.api.getMedia(credentials, id, signal, observe);
      if (answer.status === 200) return;
    }
  }
}

function isApiError(error: unknown): boolean {
  return error instanceof MastodonApiError || error instanceof DeliveryError;
}

export function toDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof MastodonApiError) {
    if (error.status === 429)
      return new DeliveryError('rate_limited', error.message, error.retryAfterMs ?? 60_000);
    if (error.status === 401) return new DeliveryError('unauthorized', error.message);
    if (error.status >= 500) return new DeliveryError('transient', error.message);
    // A success Herald cannot read may have made the status.
    if (error.status >= 200 && error.status < 300)
      return new DeliveryError('unconfirmed', `${error.message}; the status may have been made`);
    return rejected(error.message);
  }
  if (error instanceof MastodonTransportError) {
    return error.sent
      ? new DeliveryError(
          'unconfirmed',
          'The status went out but no answer came back; it may or may not have been made',
        )
      : new DeliveryError('transient', error.message);
  }
  if (error instanceof AppError || error instanceof HostUnresolvedError)
    return instanceAddressError(error);
  return new DeliveryError('transient', (error as Error).message ?? 'Unknown error');
}

function rejected(message: string): DeliveryError {
  return new DeliveryError('rejected', message, null, 'mastodon_rejected');
}

/** The address, checked before each call, is now private or unresolvable: nothing was sent. */
function instanceAddressError(error: AppError | HostUnresolvedError): DeliveryError {
  if (error instanceof AppError)
    return rejected(`The Mastodon instance's address: ${error.message}`);
  return new DeliveryError('transient', `The Mastodon instance's address: ${error.message}`);
}

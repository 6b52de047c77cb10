import type { MediaType } from '../../media/media-asset.entity';

export const PLATFORM_PUBLISHERS = Symbol('PLATFORM_PUBLISHERS');

/** A stored file to upload with a post. */
export interface OutgoingMedia {
  type: MediaType;
  mimeType: string;
  filename: string;
  storagePath: string;
  sizeBytes: number;
}

/** One message (or album) of a delivery; `cost` is how many messages it counts for pacing. */
export interface DeliveryStep {
  kind: 'text' | 'single' | 'album';
  text: string | null;
  media: OutgoingMedia[];
  cost: number;
}

/** How a send failed, which decides what happens to the target (D15). */
export type DeliveryFailure =
  /** The platform asked to wait (Telegram 429 retry_after). */
  | 'rate_limited'
  /** Not delivered, worth retrying with backoff (5xx, refused connection). */
  | 'transient'
  /** The account's credentials are refused (Telegram 401/403): the account needs reconnecting. */
  | 'unauthorized'
  /** The platform refused this message for good (Telegram 400). */
  | 'rejected'
  /** The request went out and no answer came: it may or may not have been delivered. */
  | 'unconfirmed'
  /** A media file could not be read from storage. */
  | 'media_unavailable';

export class DeliveryError extends Error {
  constructor(
    readonly failure: DeliveryFailure,
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

/** Delivers posts to one platform (STYLE 12). */
export interface PlatformPublisher {
  readonly platform: string;
  /** The messages a post becomes, in order. */
  plan(text: string, media: OutgoingMedia[]): DeliveryStep[];
  /** Sends one step; the platform's message ids. Throws DeliveryError. */
  send(credentials: string, chatId: string, step: DeliveryStep): Promise<number[]>;
}

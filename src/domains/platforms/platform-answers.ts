import type { MediaType } from '../media/media-asset.entity';

export interface PlatformChannel {
  channelId: string;
  username: string | null;
  url?: string | null;
}

/** A media kind the platform does not take is absent from `media_kinds` and `media_max_bytes`. */
export interface PlatformLimits {
  text_max: number;
  /** `utf16`, `graphemes`, or a platform's own (its descriptor's `textUnit`). */
  text_unit: string;
  media_max: number;
  media_kinds: MediaType[];
  media_max_bytes: Partial<Record<MediaType, number>>;
  /** A second measure where the platform has one, in UTF-8 bytes. */
  text_max_bytes?: number;
  /** Each http(s) link counts as this many characters, whatever its length. */
  url_length?: number;
}

export interface SentMessage {
  id: string;
  url: string | null;
  /** Kept for the next item's reply where the platform needs it; never answered. */
  cid?: string;
}

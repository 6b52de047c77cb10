import type { MediaType } from '../media/media-asset.entity';

export interface PlatformChannel {
  channelId: string;
  username: string | null;
  url?: string | null;
}

/** Or a platform's own unit, named by its descriptor's `textUnit`. */
export type TextUnit = 'utf16' | 'graphemes' | (string & Record<never, never>);

/** A media kind the platform does not take is absent from `media_kinds` and `media_max_bytes`. */
export interface PlatformLimits {
  text_max: number;
  text_unit: TextUnit;
  /** At least this many media in a post (its first message) where the platform needs them. */
  media_min?: number;
  media_max: number;
  media_kinds: MediaType[];
  media_max_bytes: Partial<Record<MediaType, number>>;
  /** A second measure where the platform has one, in UTF-8 bytes. */
  text_max_bytes?: number;
  /** Each http(s) link counts as this many characters, whatever its length. */
  url_length?: number;
  /** The most different links one text may hold. */
  links_max?: number;
  /** The most hashtags one text may hold. */
  hashtags_max?: number;
}

export interface SentMessage {
  id: string;
  url: string | null;
  /** Kept for the next item's reply where the platform needs it; never answered. */
  cid?: string;
}

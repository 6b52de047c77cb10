import type { MediaType } from '../media/media-asset.entity';

/** A channel as its links are made: its id on the platform, its public name and link, if any. */
export interface PlatformChannel {
  channelId: string;
  username: string | null;
  /** The link its platform gave when it was added. */
  url?: string | null;
}

/**
 * What one post may hold on a platform, shown with each of its channels. A media kind the
 * platform does not take is absent from `media_kinds` and from `media_max_bytes`.
 */
export interface PlatformLimits {
  text_max: number;
  /** How `text_max` counts: UTF-16 code units, or graphemes (user-perceived characters). */
  text_unit: 'utf16' | 'graphemes';
  media_max: number;
  media_kinds: MediaType[];
  media_max_bytes: Partial<Record<MediaType, number>>;
  /** A second measure of the text where the platform has one: at most this many UTF-8 bytes. */
  text_max_bytes?: number;
  /** Where each http(s) link counts as this many characters, whatever its length. */
  url_length?: number;
}

/** One message a target became: the platform's id, always text, and its public link. */
export interface SentMessage {
  id: string;
  url: string | null;
}

import type { MediaType } from './media-asset.entity';

/** 52,428,800 bytes exactly are accepted, one byte more is not. */
export const MAX_MEDIA_BYTES = 50 * 1024 * 1024;

export interface MediaKind {
  type: MediaType;
  mimeType: string;
  /** Extension of the stored file; chosen from the bytes, never from the client's name. */
  ext: string;
}

/** Keyed by the MIME type `file-type` reads from the bytes (docs/api-rules.md#media). */
export const MEDIA_KINDS: Readonly<Record<string, MediaKind>> = {
  'image/jpeg': { type: 'image', mimeType: 'image/jpeg', ext: 'jpg' },
  'image/png': { type: 'image', mimeType: 'image/png', ext: 'png' },
  'image/gif': { type: 'image', mimeType: 'image/gif', ext: 'gif' },
  'image/webp': { type: 'image', mimeType: 'image/webp', ext: 'webp' },
  'video/mp4': { type: 'video', mimeType: 'video/mp4', ext: 'mp4' },
  'video/quicktime': { type: 'video', mimeType: 'video/quicktime', ext: 'mov' },
};

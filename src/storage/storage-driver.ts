import type { Readable } from 'node:stream';

export const STORAGE_DRIVER = Symbol('STORAGE_DRIVER');

export interface StoredObject {
  /** Bytes written. */
  size: number;
}

/**
 * Where media files live. The local-disk driver is the default; an S3-compatible driver only has
 * to implement these four calls. Paths are storage keys such as `projects/1/2026/11/abc.png`.
 */
export interface StorageDriver {
  /** Streams `body` to `path`; never buffers the whole file. Rejects (and leaves nothing) on error. */
  put(path: string, body: Readable, contentType: string): Promise<StoredObject>;
  /** Opens the stored bytes for reading (e.g. to upload them to a platform). */
  openRead(path: string): Promise<Readable>;
  /** Removes the object; a missing object is not an error. */
  delete(path: string): Promise<void>;
  /** `<PUBLIC_BASE_URL>/media/<path>` for the local driver; a bucket URL for S3. */
  publicUrl(path: string): string;
}

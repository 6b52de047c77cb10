import type { Readable } from 'node:stream';

export const STORAGE_DRIVER = Symbol('STORAGE_DRIVER');

/**
 * The store did not answer, or refused Herald itself (credentials, bucket): nothing the client
 * did wrong. Answered 503 with Retry-After; a publication retries it later.
 */
export class StorageUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`Media storage is unavailable: ${reason}`);
  }
}

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
  /**
   * Opens the stored bytes for reading (e.g. to upload them to a platform). Rejects with
   * StorageUnavailableError when the store cannot be asked, anything else when the file is missing.
   */
  openRead(path: string): Promise<Readable>;
  /** Removes the object; a missing object is not an error. */
  delete(path: string): Promise<void>;
  /** `<PUBLIC_BASE_URL>/media/<path>`, whichever the driver. */
  publicUrl(path: string): string;
}

import type { Readable } from 'node:stream';

export const STORAGE_DRIVER = Symbol('STORAGE_DRIVER');

/** Not the client's fault: answered 503 with Retry-After; a publication retries it later. */
export class StorageUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`Media storage is unavailable: ${reason}`);
  }
}

export interface StoredObject {
  size: number;
}

/** Paths are storage keys such as `projects/1/2026/11/abc.png`. */
export interface StorageDriver {
  /** Never buffers the whole file; rejects (and leaves nothing) on error. */
  put(path: string, body: Readable, contentType: string): Promise<StoredObject>;
  /** StorageUnavailableError when the store cannot be asked, another error for a missing file. */
  openRead(path: string): Promise<Readable>;
  /** A missing object is not an error. */
  delete(path: string): Promise<void>;
  publicUrl(path: string): string;
}

import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AppConfig } from '../config/config';
import { InjectConfig } from '../config/config.module';
import type { StorageDriver, StoredObject } from './storage-driver';

/** A storage key: slash-separated segments of safe characters, none of them `.` or `..`. */
const STORAGE_KEY = /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;
export const MAX_STORAGE_KEY_LENGTH = 512;

export class InvalidStoragePathError extends Error {
  constructor() {
    super('Invalid storage path');
  }
}

/** Whether `path` is a well-formed storage key (no traversal, no odd characters). */
export function isValidStorageKey(path: string): boolean {
  return path.length <= MAX_STORAGE_KEY_LENGTH && STORAGE_KEY.test(path);
}

/**
 * Files under `MEDIA_STORAGE_DIR`. A file is written to a temporary name beside its target and
 * renamed into place only when complete, so a failed or rejected upload leaves nothing behind.
 */
@Injectable()
export class LocalDiskStorage implements StorageDriver {
  private readonly root: string;
  private readonly publicBase: string;

  constructor(@InjectConfig() config: AppConfig) {
    this.root = resolve(config.mediaStorageDir);
    this.publicBase = `${config.publicBaseUrl}/media/`;
  }

  async put(path: string, body: Readable, _contentType: string): Promise<StoredObject> {
    const target = this.resolve(path);
    const partial = `${target}.${randomBytes(8).toString('hex')}.part`;
    try {
      await mkdir(dirname(target), { recursive: true });
      // `wx` on the temporary name only: two writers never share one; the rename replaces, like S3.
      const file = createWriteStream(partial, { flags: 'wx' });
      await pipeline(body, file);
      await rename(partial, target);
      return { size: file.bytesWritten };
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  async openRead(path: string): Promise<Readable> {
    const file = this.resolve(path);
    await stat(file);
    return createReadStream(file);
  }

  async delete(path: string): Promise<void> {
    await rm(this.resolve(path), { force: true });
  }

  publicUrl(path: string): string {
    return `${this.publicBase}${path}`;
  }

  /** Maps a storage key to a file under the root; refuses anything that could step outside it. */
  private resolve(path: string): string {
    if (!isValidStorageKey(path)) throw new InvalidStoragePathError();
    const file = resolve(this.root, path);
    const inside = relative(this.root, file);
    if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
      throw new InvalidStoragePathError();
    }
    return file;
  }
}

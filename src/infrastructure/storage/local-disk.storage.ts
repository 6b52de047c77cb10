import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AppConfig } from '../config/config';
import { InjectConfig } from '../config/config.module';
import type { StorageDriver, StoredObject } from './storage-driver';

/** Slash-separated safe segments, none starting with a dot. */
const STORAGE_KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
export const MAX_STORAGE_KEY_LENGTH = 512;

export class InvalidStoragePathError extends Error {
  constructor() {
    super('Invalid storage path');
  }
}

export function isValidStorageKey(path: string): boolean {
  return path.length <= MAX_STORAGE_KEY_LENGTH && STORAGE_KEY.test(path);
}

/** Under the root (one file system, so renames are atomic). */
export const INCOMING_DIR = '.incoming';
/** Older partial files belong to no running upload (a process died mid-write). */
export const STALE_PARTIAL_MS = 24 * 60 * 60 * 1000;

/** Written under `.incoming/` and renamed when complete, so a failed upload leaves nothing. */
@Injectable()
export class LocalDiskStorage implements StorageDriver, OnApplicationBootstrap {
  private readonly logger = new Logger(LocalDiskStorage.name);
  private readonly root: string;
  private readonly incoming: string;
  private readonly publicBase: string;

  constructor(@InjectConfig() config: AppConfig) {
    this.root = resolve(config.mediaStorageDir);
    this.incoming = join(this.root, INCOMING_DIR);
    this.publicBase = `${config.publicBaseUrl}/media/`;
  }

  onApplicationBootstrap(): void {
    void this.removeStalePartials().then(
      (removed) => removed > 0 && this.logger.log(`Removed ${removed} abandoned partial file(s)`),
      (error: Error) => this.logger.warn(`Could not sweep ${this.incoming}: ${error.message}`),
    );
  }

  /** Answers the number removed. */
  async removeStalePartials(now = Date.now()): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.incoming);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names) {
      const file = join(this.incoming, name);
      const { mtimeMs } = await stat(file).catch(() => ({ mtimeMs: now }));
      if (now - mtimeMs < STALE_PARTIAL_MS) continue;
      await rm(file, { force: true });
      removed++;
    }
    return removed;
  }

  async put(path: string, body: Readable, _contentType: string): Promise<StoredObject> {
    const target = this.resolve(path);
    const partial = join(this.incoming, `${randomBytes(12).toString('hex')}.part`);
    try {
      await mkdir(this.incoming, { recursive: true });
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

  /** Refuses anything that could step outside the root. */
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

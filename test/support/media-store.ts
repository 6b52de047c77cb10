import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { filesUnder } from './factories/media-helpers';
import { S3TestServer } from './s3-server';

export type MediaDriver = 'local' | 's3';
/**
 * Every media test suite runs once per driver (the S3 driver keeps every promise of the local one).
 */
export const MEDIA_DRIVERS: readonly MediaDriver[] = ['local', 's3'];

/** What a test sees of where the service keeps media files, whichever the driver. */
export interface MediaStore {
  driver: MediaDriver;
  /** Every stored file or object, partial ones included (local `.incoming/`), sorted. */
  files(): Promise<string[]>;
  read(path: string): Promise<Buffer>;
  exists(path: string): Promise<boolean>;
  /** Puts a file there behind the service's back (a stray file no asset owns). */
  write(path: string, bytes: Buffer): Promise<void>;
  remove(path: string): Promise<void>;
  /** Whether an upload is being written right now (a partial file, a started multipart upload). */
  writing(): Promise<boolean>;
}

export function localStore(dir: string): MediaStore {
  return {
    driver: 'local',
    files: async () => filesUnder(dir),
    read: async (path) => readFileSync(join(dir, path)),
    exists: async (path) => existsSync(join(dir, path)),
    write: async (path, bytes) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), bytes);
    },
    remove: async (path) => rmSync(join(dir, path)),
    writing: async () => filesUnder(dir).some((f) => f.endsWith('.part')),
  };
}

export function s3Store(server: S3TestServer): MediaStore {
  return {
    driver: 's3',
    files: () => server.keys(),
    read: (path) => server.read(path),
    exists: async (path) => (await server.keys()).includes(path),
    write: (path, bytes) => server.write(path, bytes),
    remove: (path) => server.remove(path),
    writing: async () => server.pendingUploads().length > 0,
  };
}

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import type { AppConfig } from '../config/config';
import {
  INCOMING_DIR,
  InvalidStoragePathError,
  isValidStorageKey,
  LocalDiskStorage,
  STALE_PARTIAL_MS,
} from './local-disk.storage';

describe('LocalDiskStorage', () => {
  let root: string;
  let storage: LocalDiskStorage;

  beforeEach(() => {
    root = join(mkdtempSync(join(tmpdir(), 'herald-storage-')), 'media');
    storage = new LocalDiskStorage({
      mediaStorageDir: root,
      publicBaseUrl: 'https://herald.example.com',
    } as AppConfig);
  });

  afterEach(() => rmSync(dirname(root), { recursive: true, force: true }));

  it('streams a file in, reads it back, counts its bytes and deletes it', async () => {
    const path = 'projects/1/2026/11/abc.png';
    const { size } = await storage.put(
      path,
      Readable.from([Buffer.from('hello '), Buffer.from('world')]),
      'image/png',
    );
    expect(size).toBe(11);
    expect(readFileSync(join(root, path), 'utf8')).toBe('hello world');
    const chunks: Buffer[] = [];
    for await (const chunk of await storage.openRead(path)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('hello world');
    expect(storage.publicUrl(path)).toBe(
      'https://herald.example.com/media/projects/1/2026/11/abc.png',
    );
    await storage.delete(path);
    await storage.delete(path); // a missing object is not an error
    expect(readdirSync(join(root, 'projects/1/2026/11'))).toEqual([]);
  });

  it('leaves nothing behind when the body fails midway', async () => {
    async function* failing(): AsyncGenerator<Buffer> {
      yield Buffer.alloc(1024);
      throw new Error('client went away');
    }
    await expect(
      storage.put('projects/1/x.png', Readable.from(failing()), 'image/png'),
    ).rejects.toThrow('client went away');
    expect(readdirSync(join(root, 'projects/1'))).toEqual([]);
    expect(readdirSync(join(root, INCOMING_DIR))).toEqual([]);
  });

  it('writes into .incoming until complete, so a half-written file is never at its key', async () => {
    let seenWhileWriting: string[] = [];
    async function* slow(): AsyncGenerator<Buffer> {
      yield Buffer.from('half');
      // The stream pulls ahead of the disk; wait until the partial file exists.
      for (let i = 0; i < 100 && seenWhileWriting.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        seenWhileWriting = readdirSync(join(root, INCOMING_DIR));
      }
      expect(existsSync(join(root, 'projects/1/y.png'))).toBe(false);
      yield Buffer.from(' and whole');
    }
    await storage.put('projects/1/y.png', Readable.from(slow()), 'image/png');
    expect(seenWhileWriting).toHaveLength(1);
    expect(seenWhileWriting[0]).toMatch(/^[0-9a-f]{24}\.part$/);
    expect(readFileSync(join(root, 'projects/1/y.png'), 'utf8')).toBe('half and whole');
    expect(readdirSync(join(root, INCOMING_DIR))).toEqual([]);
  });

  it('removes partial files a crashed process left, once they are older than a day', async () => {
    const incoming = join(root, INCOMING_DIR);
    mkdirSync(incoming, { recursive: true });
    const now = Date.now();
    const age = (ms: number) => new Date(now - ms);
    writeFileSync(join(incoming, 'abandoned.part'), 'z');
    utimesSync(
      join(incoming, 'abandoned.part'),
      age(STALE_PARTIAL_MS + 1),
      age(STALE_PARTIAL_MS + 1),
    );
    writeFileSync(join(incoming, 'in-progress.part'), 'z');
    utimesSync(join(incoming, 'in-progress.part'), age(60_000), age(60_000));
    await storage.put('projects/1/kept.png', Readable.from([Buffer.from('kept')]), 'image/png');

    expect(await storage.removeStalePartials(now)).toBe(1);
    expect(readdirSync(incoming)).toEqual(['in-progress.part']);
    expect(readFileSync(join(root, 'projects/1/kept.png'), 'utf8')).toBe('kept');
    rmSync(incoming, { recursive: true });
    expect(await storage.removeStalePartials(now)).toBe(0);
  });

  it('replaces an existing object, as an object store would', async () => {
    await storage.put('a/b.png', Readable.from([Buffer.from('first')]), 'image/png');
    await storage.put('a/b.png', Readable.from([Buffer.from('second')]), 'image/png');
    expect(readFileSync(join(root, 'a/b.png'), 'utf8')).toBe('second');
  });

  it.each([
    ['../outside.txt'],
    ['projects/../../outside.txt'],
    ['./projects/a.png'],
    ['projects/./a.png'],
    ['/etc/passwd'],
    ['projects//a.png'],
    ['projects/a.png/'],
    ['projects\\..\\a.png'],
    ['projects/a b.png'],
    ['projects/a%2e.png'],
    ['projects/\u0000.png'],
    [''],
    ['..'],
    ['a'.repeat(513)],
    [`${INCOMING_DIR}/abc.part`],
    ['projects/.hidden.png'],
  ])('refuses the key %j', async (path) => {
    writeFileSync(join(dirname(root), 'outside.txt'), 'secret');
    expect(isValidStorageKey(path)).toBe(false);
    await expect(storage.openRead(path)).rejects.toBeInstanceOf(InvalidStoragePathError);
    await expect(storage.delete(path)).rejects.toBeInstanceOf(InvalidStoragePathError);
    await expect(
      storage.put(path, Readable.from([Buffer.from('z')]), 'image/png'),
    ).rejects.toBeInstanceOf(InvalidStoragePathError);
    expect(readFileSync(join(dirname(root), 'outside.txt'), 'utf8')).toBe('secret');
  });
});

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import type { AppConfig } from '../config/config';
import { InvalidStoragePathError, isValidStorageKey, LocalDiskStorage } from './local-disk.storage';

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
  ])('refuses the key %j', async (path) => {
    writeFileSync(join(dirname(root), 'outside.txt'), 'secret');
    expect(isValidStorageKey(path)).toBe(false);
    await expect(storage.openRead(path)).rejects.toBeInstanceOf(InvalidStoragePathError);
    await expect(storage.delete(path)).rejects.toBeInstanceOf(InvalidStoragePathError);
    await expect(
      storage.put(path, Readable.from([Buffer.from('x')]), 'image/png'),
    ).rejects.toBeInstanceOf(InvalidStoragePathError);
    expect(readFileSync(join(dirname(root), 'outside.txt'), 'utf8')).toBe('secret');
  });
});

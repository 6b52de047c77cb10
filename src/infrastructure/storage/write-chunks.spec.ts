import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeChunks, type PositionalFile } from './write-chunks';

/** A file in memory whose every write stops after `most` bytes, as a short write does. */
function shortWritingFile(most: number): PositionalFile & { bytes: Buffer } {
  const file = {
    bytes: Buffer.alloc(0),
    place(source: Buffer, position: number): number {
      const part = source.subarray(0, most);
      const end = Math.max(file.bytes.length, position + part.length);
      const grown = Buffer.alloc(end);
      file.bytes.copy(grown);
      part.copy(grown, position);
      file.bytes = grown;
      return part.length;
    },
    writev: async (chunks: Buffer[], position: number) => ({
      bytesWritten: file.place(Buffer.concat(chunks), position),
      buffers: chunks,
    }),
    write: async (buffer: Buffer, offset: number, length: number, position: number) => ({
      bytesWritten: file.place(buffer.subarray(offset, offset + length), position),
      buffer,
    }),
  };
  return file as unknown as PositionalFile & { bytes: Buffer };
}

describe('writeChunks', () => {
  const chunks = [Buffer.from('hello '), Buffer.from('spooled '), Buffer.from('world')];

  it('writes the chunks in order at the position, into a real file', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'herald-write-chunks-'));
    const file = await open(join(directory, 'f'), 'wx+');
    try {
      expect(await writeChunks(file, [Buffer.from('head:')], 0)).toBe(5);
      expect(await writeChunks(file, chunks, 5)).toBe(19);
      expect(await readFile(join(directory, 'f'), 'utf8')).toBe('head:hello spooled world');
    } finally {
      await file.close();
      await rm(directory, { recursive: true, force: true });
    }
  });

  it.each([1, 4, 7, 18])(
    'finishes writes that come up short after %i bytes, each at its place',
    async (most) => {
      const file = shortWritingFile(most);
      await writeChunks(file, [Buffer.from('head:')], 0);
      expect(await writeChunks(file, chunks, 5)).toBe(19);
      expect(file.bytes.toString()).toBe('head:hello spooled world');
    },
  );
});

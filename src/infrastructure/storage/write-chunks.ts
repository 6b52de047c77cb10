import type { FileHandle } from 'node:fs/promises';

/** What `writeChunks` needs of a file: writes at a position. */
export type PositionalFile = Pick<FileHandle, 'write' | 'writev'>;

/** One system call (docs/performance.md#s3-spool-chunks); a short write is finished. */
export async function writeChunks(
  file: PositionalFile,
  chunks: Buffer[],
  position: number,
): Promise<number> {
  const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const { bytesWritten } = await file.writev(chunks, position);
  if (bytesWritten < length) {
    const rest = Buffer.concat(chunks).subarray(bytesWritten);
    for (let at = 0; at < rest.length;) {
      const written = await file.write(rest, at, rest.length - at, position + bytesWritten + at);
      at += written.bytesWritten;
    }
  }
  return length;
}

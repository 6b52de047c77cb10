import { fromBuffer } from 'file-type';
import { Readable } from 'node:stream';
import { AppError } from '../../http/errors/error-codes';
import { MAX_MEDIA_BYTES, MEDIA_KINDS, MediaKind } from './media-kinds';

/** What `file-type` needs to recognise every format it knows. */
export const SNIFF_BYTES = 4100;

export interface SniffedStream {
  kind: MediaKind;
  /** The whole content again, failing past the size limit. */
  body: Readable;
}

export function unsupportedMediaType(): AppError {
  return new AppError(
    'unsupported_media_type',
    'Unsupported file type; upload a JPEG, PNG, GIF or WebP image or an MP4 or QuickTime video',
  );
}

export function fileTooLarge(): AppError {
  return new AppError('file_too_large', `The file is larger than ${MAX_MEDIA_BYTES} bytes (50 MB)`);
}

/** Type from the first bytes, never a name; the stream errors `file_too_large` past `maxBytes`. */
export async function sniffMedia(
  source: Readable,
  maxBytes: number = MAX_MEDIA_BYTES,
): Promise<SniffedStream> {
  const chunks = source[Symbol.asyncIterator]();
  const headParts: Buffer[] = [];
  let headLength = 0;
  let ended = false;
  try {
    while (headLength < SNIFF_BYTES) {
      const next = await chunks.next();
      if (next.done) {
        ended = true;
        break;
      }
      const chunk = toBuffer(next.value);
      headParts.push(chunk);
      headLength += chunk.length;
      if (headLength > maxBytes) throw fileTooLarge();
    }
  } catch (error) {
    await chunks.return?.();
    throw error;
  }
  const head = Buffer.concat(headParts);
  const detected = head.length > 0 ? await fromBuffer(head) : undefined;
  const kind = detected ? MEDIA_KINDS[detected.mime] : undefined;
  if (!kind) {
    await chunks.return?.();
    throw unsupportedMediaType();
  }

  async function* whole(): AsyncGenerator<Buffer> {
    let total = head.length;
    try {
      yield head;
      if (ended) return;
      for (;;) {
        const next = await chunks.next();
        if (next.done) return;
        const chunk = toBuffer(next.value);
        total += chunk.length;
        if (total > maxBytes) throw fileTooLarge();
        yield chunk;
      }
    } finally {
      // On error or early destroy, stop reading the source at once (returning destroys it).
      await chunks.return?.();
    }
  }
  return { kind, body: Readable.from(whole(), { objectMode: false }) };
}

function toBuffer(chunk: unknown): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
}

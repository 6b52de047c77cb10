import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';

export const FIXTURES_DIR = join(__dirname, '..', '..', 'fixtures', 'media');

/** A file of `test/fixtures/media`: tiny real media, one per kind Herald takes, and one impostor. */
export function fixture(name: string): Buffer {
  return readFileSync(join(FIXTURES_DIR, name));
}

/** A PNG of exactly `size` bytes: a real one, padded (its kind is read from its first bytes). */
export function pngOf(size: number): Buffer {
  const png = fixture('sample.png');
  return Buffer.concat([png, Buffer.alloc(size - png.length)]);
}

/** 50 MB means 52,428,800 bytes (docs/api-rules.md#media). */
export const FIFTY_MB = 50 * 1024 * 1024;
const ZEROS = Buffer.alloc(64 * 1024);

/** `size` bytes: `head` (e.g. a PNG signature) then zeros, generated chunk by chunk, never held whole. */
export async function* generatedBytes(head: Buffer, size: number): AsyncGenerator<Buffer> {
  yield head.subarray(0, size);
  let left = size - Math.min(head.length, size);
  while (left > 0) {
    const chunk = left >= ZEROS.length ? ZEROS : ZEROS.subarray(0, left);
    left -= chunk.length;
    yield chunk;
  }
}

export interface MultipartPart {
  field: string;
  /** A file part when set; a plain field otherwise. */
  filename?: string;
  contentType?: string;
  /** Content: bytes, or a generated stream of known size. */
  content: Buffer | { size: number; chunks: () => AsyncIterable<Buffer> };
}

/** A streamed multipart/form-data body with its exact length. */
export function multipartBody(parts: MultipartPart[]): {
  contentType: string;
  length: number;
  stream: Readable;
} {
  const boundary = `----herald${randomBytes(12).toString('hex')}`;
  const headers = parts.map((part) => {
    const disposition =
      part.filename === undefined
        ? `form-data; name="${part.field}"`
        : `form-data; name="${part.field}"; filename="${part.filename}"`;
    const type =
      part.filename === undefined
        ? ''
        : `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n`;
    return Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`);
  });
  const closing = Buffer.from(`--${boundary}--\r\n`);
  const crlf = Buffer.from('\r\n');
  const sizeOf = (part: MultipartPart) =>
    Buffer.isBuffer(part.content) ? part.content.length : part.content.size;
  const length =
    parts.reduce((sum, part, i) => sum + headers[i].length + sizeOf(part) + crlf.length, 0) +
    closing.length;
  async function* body(): AsyncGenerator<Buffer> {
    for (const [i, part] of parts.entries()) {
      yield headers[i];
      if (Buffer.isBuffer(part.content)) yield part.content;
      else yield* part.content.chunks();
      yield crlf;
    }
    yield closing;
  }
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    length,
    stream: Readable.from(body(), { objectMode: false }),
  };
}

/** Posts a multipart body over a real socket, streaming it (supertest would buffer it). */
export async function postMultipart(
  url: string,
  apiKey: string,
  parts: MultipartPart[],
): Promise<{
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}> {
  const { contentType, length, stream } = multipartBody(parts);
  const res = await request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': contentType,
      'content-length': String(length),
    },
    body: stream,
  });
  return { status: res.statusCode, body: (await res.body.json()) as never };
}

/** Every file under `dir`, as paths relative to it. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.sort();
}

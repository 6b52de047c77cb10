import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { sniffMedia } from './media-sniffer';

const PNG = readFileSync(
  join(__dirname, '..', '..', '..', 'test', 'fixtures', 'media', 'sample.png'),
);

async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('sniffMedia: type from the bytes, size limit while streaming', () => {
  it('types the content from its first bytes and hands back all of it', async () => {
    const pieces = [PNG.subarray(0, 3), PNG.subarray(3, 100), PNG.subarray(100)];
    const { kind, body } = await sniffMedia(Readable.from(pieces));
    expect(kind).toEqual({ type: 'image', mimeType: 'image/png', ext: 'png' });
    expect((await drain(body)).equals(PNG)).toBe(true);
  });

  it('refuses what it does not recognise and stops reading the source', async () => {
    let pulled = 0;
    async function* text(): AsyncGenerator<Buffer> {
      for (;;) {
        pulled++;
        yield Buffer.from('just some text, not an image\n'.repeat(100));
      }
    }
    await expect(sniffMedia(Readable.from(text()))).rejects.toMatchObject({
      code: 'unsupported_media_type',
    });
    expect(pulled).toBeLessThan(10);
  });

  it('accepts exactly the limit and refuses one byte more, stopping the source at once', async () => {
    const limit = 100_000;
    const exact = Buffer.concat([PNG.subarray(0, 64), Buffer.alloc(limit - 64)]);
    expect((await drain((await sniffMedia(Readable.from([exact]), limit)).body)).length).toBe(
      limit,
    );

    let closed = false;
    let pulled = 0;
    async function* endless(): AsyncGenerator<Buffer> {
      try {
        yield PNG.subarray(0, 64);
        for (;;) {
          pulled++;
          yield Buffer.alloc(1000);
        }
      } finally {
        closed = true;
      }
    }
    const { body } = await sniffMedia(Readable.from(endless()), limit);
    await expect(drain(body)).rejects.toMatchObject({ code: 'file_too_large' });
    expect(closed).toBe(true);
    expect(pulled).toBeLessThan(110);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { imageDimensions } from './image-dimensions';

const fixture = (name: string) =>
  readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'media', name));

describe('imageDimensions', () => {
  it.each(['sample.png', 'sample.jpg', 'sample.gif', 'sample.webp'])(
    'reads the size %s declares',
    (name) => {
      expect(imageDimensions(fixture(name))).toEqual({ width: 64, height: 48 });
    },
  );

  it('reads a lossless and an extended WebP', () => {
    const lossless = Buffer.alloc(30);
    lossless.write('RIFF', 0, 'latin1');
    lossless.write('WEBPVP8L', 8, 'latin1');
    lossless[20] = 0x2f;
    lossless.writeUInt32LE((1999 & 0x3fff) | ((999 & 0x3fff) << 14), 21);
    expect(imageDimensions(lossless)).toEqual({ width: 2000, height: 1000 });
    const extended = Buffer.alloc(30);
    extended.write('RIFF', 0, 'latin1');
    extended.write('WEBPVP8X', 8, 'latin1');
    extended.writeUIntLE(4095, 24, 3);
    extended.writeUIntLE(2047, 27, 3);
    expect(imageDimensions(extended)).toEqual({ width: 4096, height: 2048 });
  });

  it('claims nothing for a truncated header or bytes that are no image', () => {
    expect(imageDimensions(fixture('sample.png').subarray(0, 20))).toBeNull();
    expect(imageDimensions(fixture('sample.jpg').subarray(0, 40))).toBeNull();
    expect(imageDimensions(fixture('not-an-image.png'))).toBeNull();
    expect(imageDimensions(Buffer.alloc(0))).toBeNull();
  });
});

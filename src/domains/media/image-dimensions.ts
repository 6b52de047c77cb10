/** In pixels, as the image's own header gives them. */
export interface ImageDimensions {
  width: number;
  height: number;
}

/** PNG, GIF, WebP and JPEG; null when the header does not say: then nothing is claimed. */
export function imageDimensions(bytes: Buffer): ImageDimensions | null {
  const found = png(bytes) ?? gif(bytes) ?? webp(bytes) ?? jpeg(bytes);
  return found && found.width > 0 && found.height > 0 ? found : null;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function png(b: Buffer): ImageDimensions | null {
  if (b.length < 24 || !b.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  if (b.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

function gif(b: Buffer): ImageDimensions | null {
  if (b.length < 10 || !/^GIF8[79]a$/.test(b.toString('latin1', 0, 6))) return null;
  return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
}

function webp(b: Buffer): ImageDimensions | null {
  if (b.length < 30 || b.toString('latin1', 0, 4) !== 'RIFF') return null;
  if (b.toString('latin1', 8, 12) !== 'WEBP') return null;
  switch (b.toString('latin1', 12, 16)) {
    case 'VP8 ': // lossy: 14 bits each after the key frame's start code
      return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    case 'VP8L': {
      // lossless: 14 bits each, minus one, after the signature byte
      const bits = b.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    case 'VP8X': // extended: 24 bits each, minus one
      return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
    default:
      return null;
  }
}

/** The first start-of-frame segment (SOF0–SOF15 but DHT, JPG and DAC) holds the size. */
function jpeg(b: Buffer): ImageDimensions | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = b.readUInt16BE(at + 2);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (isFrame) return { width: b.readUInt16BE(at + 7), height: b.readUInt16BE(at + 5) };
    at += 2 + length;
  }
  return null;
}

/** UTF-8 bytes. */
export const MAX_FILENAME_BYTES = 255;

/** Separators become `_`, control and invisible characters go; null when nothing usable is left. */
export function sanitizeFilename(name: string | null | undefined): string | null {
  if (!name) return null;
  const cleaned = name
    .normalize('NFC')
    .replace(/[/\\]/g, '_')
    .replace(/[\s\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .replace(/ {2,}/g, ' ')
    .trim();
  const cut = truncateUtf8(cleaned, MAX_FILENAME_BYTES).trim();
  if (cut === '' || /^\.+$/.test(cut)) return null;
  return cut;
}

/** The given one, else the final URL's last path segment, else `file.<ext>`. */
export function filenameForDownload(given: string | undefined, finalUrl: URL, ext: string): string {
  return (
    sanitizeFilename(given) ?? sanitizeFilename(lastPathSegment(finalUrl)) ?? fallbackFilename(ext)
  );
}

export function fallbackFilename(ext: string): string {
  return `file.${ext}`;
}

function lastPathSegment(url: URL): string | null {
  const segment = url.pathname.split('/').pop() ?? '';
  if (segment === '') return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Never splits a character. */
function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let bytes = 0;
  let out = '';
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) break;
    bytes += size;
    out += char;
  }
  return out;
}

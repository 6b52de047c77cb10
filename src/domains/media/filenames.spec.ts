import { filenameForDownload, sanitizeFilename } from './filenames';

describe('sanitizeFilename: no separators or control characters, at most 255 bytes', () => {
  it.each([
    ['photo.png', 'photo.png'],
    ['../../etc/passwd', '.._.._etc_passwd'],
    ['..\\..\\boot.ini', '.._.._boot.ini'],
    ['a\u0000b\nc\r.png', 'ab c .png'],
    ['evil\u202Egnp.exe', 'evilgnp.exe'],
    ['\u200b\u200b', null],
    ['  spaced   name.jpg  ', 'spaced name.jpg'],
    ['Фото отпуска.jpg', 'Фото отпуска.jpg'],
  ])('%j becomes %j', (input, output) => {
    expect(sanitizeFilename(input)).toBe(output);
  });

  it.each([[''], ['   '], ['.'], ['..'], [null], [undefined]])(
    '%p leaves nothing usable',
    (input) => {
      expect(sanitizeFilename(input)).toBeNull();
    },
  );

  it('cuts to 255 bytes of UTF-8 without splitting a character', () => {
    const name = sanitizeFilename('я'.repeat(200))!;
    expect(Buffer.byteLength(name, 'utf8')).toBe(254);
    expect(name).toBe('я'.repeat(127));
    expect(sanitizeFilename('a'.repeat(300))).toBe('a'.repeat(255));
  });
});

describe('filenameForDownload', () => {
  it('prefers the given name, then the last path segment of the final URL, then file.<ext>', () => {
    const url = new URL('https://cdn.example.com/a/b/sunset%20beach.jpg?x=1');
    expect(filenameForDownload('mine.jpg', url, 'jpg')).toBe('mine.jpg');
    expect(filenameForDownload(undefined, url, 'jpg')).toBe('sunset beach.jpg');
    expect(filenameForDownload(undefined, new URL('https://example.com/'), 'png')).toBe('file.png');
    expect(filenameForDownload(undefined, new URL('https://example.com/dir/'), 'gif')).toBe(
      'file.gif',
    );
    expect(filenameForDownload(undefined, new URL('https://example.com/%2e%2e'), 'png')).toBe(
      'file.png',
    );
    expect(filenameForDownload(undefined, new URL('https://example.com/a%2Fb.png'), 'png')).toBe(
      'a_b.png',
    );
  });
});

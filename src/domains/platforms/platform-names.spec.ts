import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { BUILT_ON, PLATFORM_NAMES } from './platforms';
import { sourceFiles } from '../../../test/support/source-files';

/**
 * Nothing outside a platform's folder names a platform: the generic code learns them from their
 * descriptors, so a new platform is a new folder and one line in the registration list.
 * Migrations, tests and docs live outside src/ and may name them.
 */
const SRC = join(__dirname, '..', '..');
const REGISTRATION = 'domains/platforms/platforms.ts';

/** Its own folder, and the folder of a platform built on this one's login. */
function mayName(file: string, name: string): boolean {
  if (file.startsWith(`domains/platforms/${name}/`)) return true;
  return Object.entries(BUILT_ON).some(
    ([platform, bases]) =>
      bases.includes(name) && file.startsWith(`domains/platforms/${platform}/`),
  );
}

/**
 * Anywhere in the text for a name of some length. A one-letter name would match every word, so it
 * counts wherever it stands alone in quotes (a throwaway string is another letter), starts a
 * channel ref (`<name>:…`), or prefixes a setting (`<NAME>_…`).
 */
function names(text: string, name: string): boolean {
  if (name.length >= 4) return text.toLowerCase().includes(name);
  const q = `['"\`]`;
  const named = new RegExp(`${q}${name}${q}|${q}${name}:`, 'i');
  const setting = new RegExp(`\\b${name.toUpperCase()}_[A-Z]`);
  return named.test(text) || setting.test(text);
}

describe('platform names', () => {
  const files = sourceFiles(SRC).map((path) => relative(SRC, path).split(sep).join('/'));

  it('appear only in their own folder and the registration list', () => {
    const offenders: string[] = [];
    for (const file of files) {
      if (file === REGISTRATION) continue;
      const text = readFileSync(join(SRC, file), 'utf8');
      for (const name of PLATFORM_NAMES) {
        if (mayName(file, name)) continue;
        if (names(text, name)) offenders.push(`${file} names ${name}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('a platform is built only on registered ones', () => {
    for (const [platform, bases] of Object.entries(BUILT_ON))
      for (const name of [platform, ...bases]) expect(PLATFORM_NAMES).toContain(name);
  });

  it('are each registered with a folder of their own', () => {
    const registration = readFileSync(join(SRC, REGISTRATION), 'utf8');
    for (const name of PLATFORM_NAMES) {
      expect(files.some((file) => file.startsWith(`domains/platforms/${name}/`))).toBe(true);
      expect(registration).toContain(`./${name}/${name}.descriptor`);
    }
  });
});

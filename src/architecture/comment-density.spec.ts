import { readFileSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { sourceFiles } from '../../test/support/source-files';

// Comments keep contracts and one-line reasons; the code says what it does.
const SRC = resolve(__dirname, '..');
const MAX_COMMENT_SHARE = 0.06;

interface Density {
  file: string;
  comment: number;
  code: number;
}

/** Comment-only lines (`//`, or opening, inside or closing a block comment) and code lines; blanks count as neither. */
function density(text: string): Omit<Density, 'file'> {
  let comment = 0;
  let code = 0;
  let inBlock = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (inBlock) {
      const end = line.indexOf('*/');
      if (end < 0) {
        comment++;
        continue;
      }
      inBlock = false;
      if (line.slice(end + 2).trim() === '') comment++;
      else code++;
    } else if (line === '') {
      continue;
    } else if (line.startsWith('//')) {
      comment++;
    } else if (line.startsWith('/*')) {
      const end = line.indexOf('*/', 2);
      if (end < 0) inBlock = true;
      if (end < 0 || line.slice(end + 2).trim() === '') comment++;
      else code++;
    } else {
      code++;
    }
  }
  return { comment, code };
}

describe('comment density', () => {
  it('counts comment-only lines, not code that holds a comment', () => {
    const text = [
      '/**',
      ' * A contract.',
      ' */',
      'const a = 1; // why',
      '',
      '/* x */ const b = 2;',
      "const accept = '*/*';",
      '// c',
    ];
    expect(density(text.join('\n'))).toEqual({ comment: 4, code: 3 });
  });

  it(`keeps comment-only lines of src/ at most ${MAX_COMMENT_SHARE * 100}% of its code lines`, () => {
    const files: Density[] = sourceFiles(SRC, false).map((path) => ({
      file: relative(SRC, path).split(sep).join('/'),
      ...density(readFileSync(path, 'utf8')),
    }));
    const comment = files.reduce((sum, f) => sum + f.comment, 0);
    const code = files.reduce((sum, f) => sum + f.code, 0);
    const densest = [...files]
      .sort((a, b) => b.comment / Math.max(b.code, 1) - a.comment / Math.max(a.code, 1))
      .slice(0, 10)
      .map((f) => `${f.file}: ${f.comment} comment / ${f.code} code`);
    const share = comment / code;
    const report = share <= MAX_COMMENT_SHARE ? 'within' : { comment, code, share, densest };
    expect(report).toBe('within');
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The Node flags (`--…`) of a command: an npm script, a Dockerfile `CMD` array, a shell line. */
export function nodeFlags(command: string): string[] {
  return command.split(/[\s",[\]]+/).filter((word) => word.startsWith('--'));
}

/** Node's flags for Herald's processes: those of `npm start` (the image's `CMD` has the same). */
export function heraldNodeFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  return nodeFlags(scripts.start as string);
}

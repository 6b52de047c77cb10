import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every `.ts` file below `dir`, specs among them unless `withSpecs` is false. */
export function sourceFiles(dir: string, withSpecs = true): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path, withSpecs);
    if (!entry.name.endsWith('.ts')) return [];
    return withSpecs || !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

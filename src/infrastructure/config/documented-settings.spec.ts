import { getMetadataStorage } from 'class-validator';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLATFORM_DESCRIPTORS } from '../../domains/platforms/platforms';
import { EnvironmentVariables } from './environment';

/**
 * The README's configuration table is written from the schemas: Herald's own variables and every
 * platform's. Each variable has its row, with its default where the schema gives one.
 */
const README = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
const ROWS = README.split('\n').filter((line) => line.startsWith('| `'));

const SCHEMAS: { new (): object }[] = [
  EnvironmentVariables,
  ...PLATFORM_DESCRIPTORS.flatMap(({ settings }) => (settings ? [settings.schema] : [])),
];

function variablesOf(schema: { new (): object }): string[] {
  const rules = getMetadataStorage().getTargetValidationMetadatas(schema, '', true, false);
  return [...new Set(rules.map((rule) => rule.propertyName))];
}

describe('the README documents every setting', () => {
  const cases = SCHEMAS.flatMap((schema) => {
    const defaults = new schema() as Record<string, unknown>;
    return variablesOf(schema).map((name) => ({ name, fallback: defaults[name] }));
  });

  it.each(cases)('$name has a row with its default', ({ name, fallback }) => {
    const row = ROWS.find((line) => line.includes(`\`${name}\``));
    expect(row).toBeDefined();
    if (fallback === undefined) return;
    const shown = Array.isArray(fallback) ? fallback.join(',') : String(fallback);
    expect((row as string).split('|')[2]).toContain(`\`${shown}\``);
  });
});

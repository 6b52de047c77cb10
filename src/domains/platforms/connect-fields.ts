import { validationFailed } from '../../http/errors/validation';
import type { ErrorDetail } from '../../http/errors/error-codes';
import type { ConnectFields } from './platform';
import type { ConnectField } from './platform-descriptor';

/** Every problem at once as `validation_failed`, before the platform is asked. */
export function readFields(
  fields: ConnectFields,
  rules: readonly ConnectField[],
  displayName: string,
): Record<string, string | undefined> {
  const problems: ErrorDetail[] = [];
  const read: Record<string, string | undefined> = {};
  for (const rule of rules) {
    const value = fields[rule.name];
    if (value === undefined || value === null) {
      if (!rule.optional) problems.push({ field: rule.name, message: `${rule.name} is required` });
      continue;
    }
    if (typeof value !== 'string' || value.trim() === '') {
      problems.push({ field: rule.name, message: `${rule.name} must be a non-empty string` });
      continue;
    }
    if (rule.pattern && !rule.pattern.test(value)) {
      problems.push({
        field: rule.name,
        message: rule.patternMessage ?? `${rule.name} is not well formed`,
      });
      continue;
    }
    read[rule.name] = value;
  }
  const known = new Set(rules.map((rule) => rule.name));
  for (const name of Object.keys(fields).sort()) {
    if (!known.has(name) && fields[name] !== undefined)
      problems.push({ field: name, message: `${name} is not a field of a ${displayName} account` });
  }
  if (problems.length > 0) throw validationFailed(problems);
  return read;
}

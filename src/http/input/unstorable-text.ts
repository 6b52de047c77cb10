export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';
export const SURROGATE_MESSAGE =
  'must be well-formed Unicode text (an unpaired surrogate such as \\ud800 is not)';

function problemOf(text: string): string | null {
  if (text.includes('\u0000')) return NUL_MESSAGE;
  // A lone surrogate (`\ud800`) has no UTF-8 form, and some validators throw on it.
  if (!text.isWellFormed()) return SURROGATE_MESSAGE;
  return null;
}

/** Refused like unknown fields: class-transformer drops them, so the whitelist never sees them. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const PROTOTYPE_KEY_MESSAGE = 'is not allowed';

/** The first unstorable string (value or key) and its dotted path. */
export function unstorableText(
  value: unknown,
  prototypeKeys = false,
): { field: string; message: string } | null {
  const stack: Array<{ path: string; value: unknown }> = [{ path: '', value }];
  while (stack.length > 0) {
    const { path, value: current } = stack.pop()!;
    if (typeof current === 'string') {
      const message = problemOf(current);
      if (message) return { field: path || 'body', message };
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    const entries = Array.isArray(current)
      ? current.map((item, index) => [String(index), item] as const)
      : Object.entries(current);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i];
      const childPath = path ? `${path}.${key}` : key;
      const message =
        prototypeKeys && PROTOTYPE_KEYS.has(key) ? PROTOTYPE_KEY_MESSAGE : problemOf(key);
      if (message) return { field: childPath, message };
      stack.push({ path: childPath, value: item });
    }
  }
  return null;
}

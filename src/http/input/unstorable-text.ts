export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';
export const SURROGATE_MESSAGE =
  'must be well-formed Unicode text (an unpaired surrogate such as \\ud800 is not)';

/** Why PostgreSQL (and the validators before it) cannot take this string, or null. */
function problemOf(text: string): string | null {
  if (text.includes('\u0000')) return NUL_MESSAGE;
  // JSON's `\ud800` escape decodes to half a character: no UTF-8 encodes it, and validators
  // that encode their input (isEmail's length check) throw on it.
  if (!text.isWellFormed()) return SURROGATE_MESSAGE;
  return null;
}

/**
 * Keys that name JavaScript's prototype machinery. No body field is called so, and code that
 * copies or merges a body (class-transformer drops them silently, so the unknown-field check never
 * saw them) must never meet one: such a key is refused like any unknown field.
 */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const PROTOTYPE_KEY_MESSAGE = 'is not allowed';

/**
 * The first string (value or key) of a parsed body or query that cannot be stored, with why: its
 * path dotted like validation details (`targets.0.channel_id`). Such text is refused up front for
 * every route. With `prototypeKeys` (a JSON body), a key `__proto__`, `constructor` or `prototype`
 * at any depth is refused too. Walks with an explicit stack: no recursion.
 */
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

/**
 * The path of the first string (value or key) holding U+0000 in a parsed body or query, dotted
 * like validation details (`targets.0.channel_id`), or null. PostgreSQL cannot store the byte,
 * so D18 refuses it up front for every route. Walks with an explicit stack: no recursion.
 */
export function fieldWithNul(value: unknown): string | null {
  const stack: Array<{ path: string; value: unknown }> = [{ path: '', value }];
  while (stack.length > 0) {
    const { path, value: current } = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return path || 'body';
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    const entries = Array.isArray(current)
      ? current.map((item, index) => [String(index), item] as const)
      : Object.entries(current);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i];
      const childPath = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) return childPath;
      stack.push({ path: childPath, value: item });
    }
  }
  return null;
}

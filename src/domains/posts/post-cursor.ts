import type { PostStatus } from './post-state';
import type { PostKey } from './post-rows';

/**
 * The post list's cursor (docs/api-rules.md#post-object-and-list): the last post's sort key, bound
 * to the project and the status filter it was made for, signed (SecretsService.signToken) so that
 * it cannot be forged or moved to another project or filter. Clients only ever pass back what they
 * were given.
 */
export interface CursorScope {
  projectId: number;
  status: PostStatus | null;
}

const CURSOR_VERSION = 1;

/** The signed text; `sign` is SecretsService.signToken. */
export function encodeCursor(
  sign: (data: string) => string,
  scope: CursorScope,
  key: PostKey,
): string {
  return sign(
    JSON.stringify([CURSOR_VERSION, scope.projectId, scope.status, key.createdAt, key.id]),
  );
}

/** The key of a cursor made for this scope; null for anything else. `data` is the verified text. */
export function decodeCursor(data: string | null, scope: CursorScope): PostKey | null {
  if (data === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 5) return null;
  const [version, projectId, status, createdAt, id] = parsed as unknown[];
  if (version !== CURSOR_VERSION || projectId !== scope.projectId || status !== scope.status)
    return null;
  if (typeof createdAt !== 'string' || !Number.isInteger(id)) return null;
  return { createdAt, id: id as number };
}

import type { PostStatus } from './post-state';
import type { PostKey } from './post-rows';

/** Signed, bound to its project and status filter (docs/api-rules.md#post-object-and-list). */
export interface CursorScope {
  projectId: number;
  status: PostStatus | null;
}

const CURSOR_VERSION = 1;

export function encodeCursor(
  sign: (data: string) => string,
  scope: CursorScope,
  key: PostKey,
): string {
  return sign(
    JSON.stringify([CURSOR_VERSION, scope.projectId, scope.status, key.createdAt, key.id]),
  );
}

/** Null for a cursor of another scope; `data` is the verified text. */
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

/** What a send made on Threads before publishing, kept so a later try finishes it. */
export interface ThreadsProgress {
  children?: string[];
  container?: string;
  since: number;
}

export function readProgress(kept: string | null): ThreadsProgress | null {
  if (kept === null) return null;
  try {
    const progress = JSON.parse(kept) as Partial<ThreadsProgress>;
    if (typeof progress.since !== 'number') return null;
    const children = Array.isArray(progress.children)
      ? progress.children.filter((id): id is string => typeof id === 'string')
      : undefined;
    const container = typeof progress.container === 'string' ? progress.container : undefined;
    return { since: progress.since, children, container };
  } catch {
    return null;
  }
}

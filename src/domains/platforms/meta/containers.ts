import { setTimeout as sleep } from 'node:timers/promises';

export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';

export interface ContainerState {
  status: ContainerStatus;
  errorMessage: string | null;
}

export interface ContainerWait {
  maxMs: number;
  firstGapMs: number;
  longestGapMs: number;
}

const KNOWN: readonly ContainerStatus[] = [
  'IN_PROGRESS',
  'FINISHED',
  'PUBLISHED',
  'ERROR',
  'EXPIRED',
];

export function containerStatusOf(value: unknown): ContainerStatus {
  return KNOWN.includes(value as ContainerStatus) ? (value as ContainerStatus) : 'IN_PROGRESS';
}

/** Reads until it is no longer processing, or `IN_PROGRESS` once the bounded wait is over. */
export async function settledContainer(
  read: () => Promise<ContainerState>,
  wait: ContainerWait,
  signal: AbortSignal,
): Promise<ContainerState> {
  const until = Date.now() + wait.maxMs;
  let state = await read();
  for (let gap = wait.firstGapMs; state.status === 'IN_PROGRESS';) {
    if (Date.now() + gap > until) return state;
    await sleep(gap, undefined, { signal });
    state = await read();
    gap = Math.min(gap * 2, wait.longestGapMs);
  }
  return state;
}

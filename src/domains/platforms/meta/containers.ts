export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';

export interface ContainerState {
  status: ContainerStatus;
  errorMessage: string | null;
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

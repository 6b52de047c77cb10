import type { DeliveryError } from '../platform';
import { graphAppError, graphDeliveryError, graphRejected } from '../meta/graph-failures';

const THREADS = { name: 'threads', displayName: 'Threads' } as const;

export function toDeliveryError(error: unknown, signal?: AbortSignal): DeliveryError {
  return graphDeliveryError(THREADS, error, signal);
}

export function rejected(message: string): DeliveryError {
  return graphRejected(THREADS, message);
}

export function toAppError(error: unknown): unknown {
  return graphAppError(THREADS, error);
}

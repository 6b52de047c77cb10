import { AppError } from '../../../http/errors/error-codes';
import { GraphApiError, GraphTransportError } from '../meta/graph-errors';
import { DeliveryError } from '../platform';
import { platformRateLimited } from '../platform-rate-limit';

/** A send's error as the pipeline reads it: Meta's classes, each with Meta's own words. */
export function toDeliveryError(error: unknown, signal?: AbortSignal): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof GraphApiError) {
    switch (error.kind) {
      case 'token':
        return new DeliveryError(
          'unauthorized',
          `Threads refused the access token: ${error.reason}`,
        );
      case 'limit':
        return new DeliveryError(
          'rate_limited',
          `Threads is limiting this account: ${error.reason}`,
          error.waitMs,
        );
      case 'transient':
        return new DeliveryError('transient', `Threads failed for now: ${error.reason}`);
      case 'refused':
        return rejected(`Threads refused the post: ${error.reason}`);
    }
  }
  if (error instanceof GraphTransportError)
    return new DeliveryError(error.sent ? 'unconfirmed' : 'transient', error.message);
  if (signal?.aborted)
    return new DeliveryError(
      'unconfirmed',
      'Threads did not answer in time; the call may have been served',
    );
  return new DeliveryError('transient', (error as Error)?.message ?? 'Unknown error');
}

export function rejected(message: string): DeliveryError {
  return new DeliveryError('rejected', message, null, 'threads_rejected');
}

export function toAppError(error: unknown): unknown {
  if (error instanceof GraphApiError) {
    if (error.kind === 'limit') return platformRateLimited('Threads', error.waitMs);
    if (error.kind === 'transient')
      return new AppError('threads_unavailable', 'Threads could not be reached; try again later');
    return new AppError('threads_rejected', `Threads refused: ${error.reason}`);
  }
  if (error instanceof GraphTransportError)
    return new AppError('threads_unavailable', 'Threads could not be reached; try again later');
  return error;
}

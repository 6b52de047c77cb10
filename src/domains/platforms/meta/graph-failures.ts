import { AppError, type ErrorCode } from '../../../http/errors/error-codes';
import { DeliveryError, type TargetFailureCode } from '../platform';
import { platformRateLimited } from '../platform-rate-limit';
import { GraphApiError, GraphTransportError } from './graph-errors';

/** The Meta network a Graph call went to: its name makes `<name>_rejected`, its title the words. */
export interface GraphPlatform {
  name: string;
  displayName: string;
}

/** A send's error as the pipeline reads it: Meta's classes, each with Meta's own words. */
export function graphDeliveryError(
  platform: GraphPlatform,
  error: unknown,
  signal?: AbortSignal,
): DeliveryError {
  const name = platform.displayName;
  if (error instanceof DeliveryError) return error;
  if (error instanceof GraphApiError) {
    switch (error.kind) {
      case 'token':
        return new DeliveryError(
          'unauthorized',
          `${name} refused the access token: ${error.reason}`,
        );
      case 'limit':
        return new DeliveryError(
          'rate_limited',
          `${name} is limiting this account: ${error.reason}`,
          error.waitMs,
        );
      case 'transient':
        return new DeliveryError('transient', `${name} failed for now: ${error.reason}`);
      case 'refused':
        return graphRejected(platform, `${name} refused the post: ${error.reason}`);
    }
  }
  if (error instanceof GraphTransportError)
    return new DeliveryError(error.sent ? 'unconfirmed' : 'transient', error.message);
  if (signal?.aborted)
    return new DeliveryError(
      'unconfirmed',
      `${name} did not answer in time; the call may have been served`,
    );
  return new DeliveryError('transient', (error as Error)?.message ?? 'Unknown error');
}

export function graphRejected(platform: GraphPlatform, message: string): DeliveryError {
  return new DeliveryError(
    'rejected',
    message,
    null,
    `${platform.name}_rejected` as TargetFailureCode,
  );
}

/** A refusal at connect time, as Herald's error: a limit is a 429 with the wait, never a 502. */
export function graphAppError(platform: GraphPlatform, error: unknown): unknown {
  const unavailable = () =>
    new AppError(
      `${platform.name}_unavailable` as ErrorCode,
      `${platform.displayName} could not be reached; try again later`,
    );
  if (error instanceof GraphApiError) {
    if (error.kind === 'limit') return platformRateLimited(platform.displayName, error.waitMs);
    if (error.kind === 'transient') return unavailable();
    return new AppError(
      `${platform.name}_rejected` as ErrorCode,
      `${platform.displayName} refused: ${error.reason}`,
    );
  }
  if (error instanceof GraphTransportError) return unavailable();
  return error;
}

/** A call bounded by `timeoutMs`, its failure as Herald's error (connect and channel reads). */
export async function graphCheck<T>(
  platform: GraphPlatform,
  timeoutMs: number,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  try {
    return await call(AbortSignal.timeout(timeoutMs));
  } catch (error) {
    throw graphAppError(platform, error);
  }
}

/** One send bounded by `timeoutMs`; its failure as the pipeline reads it. */
export async function graphSend<T>(
  platform: GraphPlatform,
  timeoutMs: number,
  send: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    return await send(signal);
  } catch (error) {
    throw graphDeliveryError(platform, error, signal);
  }
}

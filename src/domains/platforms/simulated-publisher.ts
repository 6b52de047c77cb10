import { randomInt } from 'node:crypto';
import {
  DeliveryError,
  type DeliveryFailure,
  type DeliveryStep,
  type OutgoingMedia,
  type PlatformMessage,
  type PlatformPublisher,
  type SendTarget,
  type TargetFailureCode,
} from './platform';
import type { PlatformChannel } from './platform-answers';

/** `[simulate:<code>]` in a test post's text fails each target with `<code>`, as for real. */
export const SIMULATED_FAILURES: Readonly<Partial<Record<TargetFailureCode, DeliveryFailure>>> = {
  platform_rejected: 'rejected',
  delivery_failed: 'transient',
  delivery_unconfirmed: 'unconfirmed',
  media_unavailable: 'media_unavailable',
};

const MARKER = /\[simulate:([a-z_]+)\]/;

/** Plans as the real publisher does and answers made-up ids (docs/api-rules.md#test-mode). */
export class SimulatedPublisher implements PlatformPublisher {
  readonly platform: string;

  constructor(private readonly real: PlatformPublisher) {
    this.platform = real.platform;
  }

  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    return this.real
      .plan(text, media)
      .map((step) => ({ ...step, messages: step.messages ?? step.cost }));
  }

  send(_credentials: string, _target: SendTarget, step: DeliveryStep): Promise<PlatformMessage[]> {
    const failure = simulatedFailure(step.text);
    if (failure) {
      return Promise.reject(
        new DeliveryError(failure, `Simulated failure (test mode): ${failureCode(step.text)}`),
      );
    }
    const count = step.messages ?? 1;
    const first = randomInt(1_000_000, 2_000_000_000);
    return Promise.resolve(Array.from({ length: count }, (_, i) => ({ id: String(first + i) })));
  }
}

/** Under a domain that never resolves (example.invalid), never taken for a real one. */
export function simulatedMessageUrl(
  platform: string,
  channel: PlatformChannel,
  messageId: string,
): string {
  const path = [platform, channel.channelId, messageId].map(encodeURIComponent).join('/');
  return `https://example.invalid/${path}`;
}

function failureCode(text: string | null): keyof typeof SIMULATED_FAILURES | null {
  const code = text ? MARKER.exec(text)?.[1] : undefined;
  return code !== undefined && code in SIMULATED_FAILURES
    ? (code as keyof typeof SIMULATED_FAILURES)
    : null;
}

function simulatedFailure(text: string | null): DeliveryFailure | null {
  const code = failureCode(text);
  return code === null ? null : (SIMULATED_FAILURES[code] ?? null);
}

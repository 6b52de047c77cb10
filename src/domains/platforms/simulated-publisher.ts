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

/**
 * Text markers that make a simulated delivery fail, so integrators can try their failure handling
 * in test mode. `[simulate:<code>]` anywhere in a post's text fails each target with `<code>`,
 * through the same path a real failure takes (delivery_failed is retried with backoff first).
 * `account_needs_reconnect` is left out on purpose: it would mark a real account for reconnection.
 */
export const SIMULATED_FAILURES: Readonly<Partial<Record<TargetFailureCode, DeliveryFailure>>> = {
  platform_rejected: 'rejected',
  delivery_failed: 'transient',
  delivery_unconfirmed: 'unconfirmed',
  media_unavailable: 'media_unavailable',
};

const MARKER = /\[simulate:([a-z_]+)\]/;

/**
 * Delivers test posts without a connection (docs/api-rules.md#test-mode). It plans a post exactly
 * as the platform's own publisher does (same steps, so the same number of message ids) and answers
 * made-up ids. The send gate never paces a test post, so it never uses an account's pacing budget.
 */
export class SimulatedPublisher implements PlatformPublisher {
  readonly platform: string;

  constructor(private readonly real: PlatformPublisher) {
    this.platform = real.platform;
  }

  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    // A step makes as many messages as it counts for on the real platform (an album of three, three).
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

/**
 * A test post's message link: under a domain that never resolves (example.invalid), so that it
 * is never taken for a real one.
 */
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

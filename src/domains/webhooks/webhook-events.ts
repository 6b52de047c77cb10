/** The events an endpoint can subscribe to (docs/api-rules.md#webhooks). */
export const SUBSCRIBABLE_EVENTS = [
  'post.published',
  'post.failed',
  'channel.needs_reconnect',
  'account.connected',
] as const;
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];

/** Sent only by the test call, to the one endpoint it names. */
export const TEST_EVENT = 'webhook.test';
export type WebhookEventType = SubscribableEvent | typeof TEST_EVENT;

/** Where one event send to one endpoint stands. */
export type WebhookSendStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

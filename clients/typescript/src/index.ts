export { Herald, Pager } from './herald';
export type * from './herald';
export { HeraldError } from './errors';
export type { HeraldErrorDetail } from './errors';
export { verifyWebhook, WebhookVerificationError } from './webhooks';
export type { WebhookEvent, WebhookHeaders } from './webhooks';
export { parseUtc } from './dates';

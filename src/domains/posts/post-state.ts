/** docs/api-rules.md#post-states. */
export const POST_STATUSES = [
  'draft',
  'scheduled',
  'queued',
  'publishing',
  'published',
  'failed',
] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

export const TARGET_STATUSES = ['pending', 'published', 'failed'] as const;
export type TargetStatus = (typeof TARGET_STATUSES)[number];

export const PUBLISHABLE_FROM: readonly PostStatus[] = ['draft', 'scheduled', 'failed'];

/** The state guard of every job. */
export const PROCESSABLE_FROM: readonly PostStatus[] = ['queued', 'scheduled', 'publishing'];

/** PATCH only before publication starts; DELETE also after a failure, never once sent. */
export const EDITABLE_FROM: readonly PostStatus[] = ['draft', 'scheduled'];
export const DELETABLE_FROM: readonly PostStatus[] = ['draft', 'scheduled', 'failed'];

/** A post's own limits, whatever its platform (docs/api-rules.md#post-rules). */
export const MAX_TEXT_LENGTH = 4096;
/** With `split_long_text`, the text may be this long: it is cut into a thread. */
export const MAX_SPLIT_TEXT_LENGTH = 100_000;
export const MAX_TARGETS_PER_POST = 50;
export const MAX_MEDIA_PER_POST = 10;
export function scheduleHorizon(nowMs: number): number {
  const horizon = new Date(nowMs);
  horizon.setUTCFullYear(horizon.getUTCFullYear() + 1);
  return horizon.getTime();
}

export const DEFAULT_LIST_LIMIT = 20;
export const MAX_LIST_LIMIT = 100;

/** Both a schedule and publish_now is refused earlier. */
export function initialStatus(input: { scheduledAt?: unknown; publishNow?: boolean }): PostStatus {
  if (input.scheduledAt !== undefined && input.scheduledAt !== null) return 'scheduled';
  if (input.publishNow === true) return 'queued';
  return 'draft';
}

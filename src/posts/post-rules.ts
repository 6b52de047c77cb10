import { toChannelRef } from '../channels/channel-ref';
import { AppError, type ErrorCode, type ErrorDetail } from '../errors/error-codes';
import type { ResolvedChannel } from './posts.repository';

/**
 * The rules a post's targets and media must keep, as create, PATCH, publish and the dry run check
 * them: one rule set that names every problem it finds, so the dry run can answer them all and
 * the others answer the first with the rest in `error.details`. What the body's own shape must be
 * (types, lengths, unknown fields) is the DTO's part and comes before.
 */
export interface PostProblem {
  code: ErrorCode;
  message: string;
  /** The body field at fault. */
  field: string;
  /** The target at fault, when the problem is one target's. */
  channel_ref: string | null;
}

/**
 * Every ref a channel of this project (`channel_not_found`), one platform for all
 * (`mixed_platforms`), and, for a post to be published or scheduled, no channel whose account
 * needs reconnecting (`channel_needs_reconnect`). `found` holds the project's channels among the
 * refs, whatever their order.
 */
export function targetProblems(
  refs: readonly string[],
  found: readonly ResolvedChannel[],
  publishing: boolean,
): PostProblem[] {
  const byRef = new Map(found.map((c) => [refOf(c), c]));
  const problems: PostProblem[] = [];
  const channels: ResolvedChannel[] = [];
  for (const ref of refs) {
    const channel = byRef.get(ref);
    if (channel) channels.push(channel);
    else
      problems.push({
        code: 'channel_not_found',
        message: `Channel ${ref} is not a channel of this project`,
        field: 'targets',
        channel_ref: ref,
      });
  }
  if (new Set(channels.map((c) => c.platform)).size > 1)
    problems.push({
      code: 'mixed_platforms',
      message: 'All targets of a post must be on one platform',
      field: 'targets',
      channel_ref: null,
    });
  if (publishing)
    for (const stale of channels.filter((c) => c.needs_reconnect))
      problems.push({
        code: 'channel_needs_reconnect',
        message: `The account of channel ${refOf(stale)} must be reconnected first`,
        field: 'targets',
        channel_ref: refOf(stale),
      });
  return problems;
}

/** Every media id an asset of this project (`media_not_found`, one problem naming them all). */
export function mediaProblems(ids: readonly number[], found: ReadonlySet<number>): PostProblem[] {
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length === 0) return [];
  return [
    {
      code: 'media_not_found',
      message: `Media not found in this project: ${missing.join(', ')}`,
      field: 'media_ids',
      channel_ref: null,
    },
  ];
}

/** The error of a refused post: the first problem, with every problem in `details`. */
export function refusal(problems: readonly PostProblem[]): AppError {
  const [first] = problems;
  return new AppError(first.code, first.message, problems.map(toDetail));
}

export function toDetail(problem: PostProblem): ErrorDetail {
  return { ...problem };
}

function refOf(channel: ResolvedChannel): string {
  return toChannelRef(channel.platform, channel.account_id, channel.channel_id);
}

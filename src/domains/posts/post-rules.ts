import { toChannelRef } from '../channels/channel-ref';
import { AppError, type ErrorCode, type ErrorDetail } from '../../http/errors/error-codes';
import type { MediaType } from '../media/media-asset.entity';
import { MAX_MEDIA_BYTES } from '../media/media-kinds';
import type { MediaToCheck, Platform } from '../platforms/platform';
import type { PlatformLimits } from '../platforms/platform-answers';
import { PLATFORM_DESCRIPTORS } from '../platforms/platforms';
import type { ResolvedChannel } from './post-rows';
import { MAX_MEDIA_PER_POST, MAX_TEXT_LENGTH } from './post-state';

/** Every problem is named: the dry run answers all, others the first with all in `details`. */
export interface PostProblem {
  code: ErrorCode;
  message: string;
  field: string;
  /** Null unless the problem is one target's. */
  channel_ref: string | null;
}

/** `found` holds the project's channels among the refs, whatever their order. */
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

export interface LimitedTarget {
  ref: string;
  platform: Platform;
  /** The account's own limits (an instance's), else the platform's. */
  limits: PlatformLimits;
}

/** Targets under the same limits are checked once, and their problems name the first of them. */
export function limitProblems(
  targets: readonly LimitedTarget[],
  text: string,
  media: readonly MediaToCheck[],
): PostProblem[] {
  const groups = new Map<string, LimitedTarget[]>();
  for (const target of targets) {
    const key = `${target.platform.name}:${JSON.stringify(target.limits)}`;
    groups.set(key, [...(groups.get(key) ?? []), target]);
  }
  return [...groups.values()].flatMap(([first]) => limitsOfOne(first, first.ref, text, media));
}

function limitsOfOne(
  { platform, limits }: LimitedTarget,
  channelRef: string,
  text: string,
  media: readonly MediaToCheck[],
): PostProblem[] {
  const name = platform.displayName;
  const problems: PostProblem[] = [];
  const problem = (code: ErrorCode, field: string, message: string) =>
    problems.push({ code, message, field, channel_ref: channelRef });
  const length = platform.measureText(text, limits);
  if (length > limits.text_max) {
    const unit = unitName(limits.text_unit);
    const links = limits.url_length ? `, each link counting ${limits.url_length}` : '';
    problem(
      'text_too_long',
      'text',
      `${name} takes at most ${limits.text_max} ${unit} of text${links}; this text has ${length}`,
    );
  }
  const bytes = Buffer.byteLength(text, 'utf8');
  if (limits.text_max_bytes !== undefined && bytes > limits.text_max_bytes)
    problem(
      'text_too_long',
      'text',
      `${name} takes at most ${limits.text_max_bytes} bytes of text (UTF-8); this text has ${bytes}`,
    );
  const links = limits.links_max === undefined ? [] : (platform.links?.(text) ?? []);
  if (limits.links_max !== undefined && links.length > limits.links_max)
    problem(
      'too_many_links',
      'text',
      `${name} takes at most ${limits.links_max} different links in a post; this text has ${links.length}`,
    );
  if (media.length > limits.media_max)
    problem(
      'too_many_media',
      'media_ids',
      `${name} takes at most ${limits.media_max} media files in a post; this post has ${media.length}`,
    );
  for (const kind of new Set(media.map((medium) => medium.type))) {
    if (limits.media_kinds.includes(kind)) continue;
    const ids = media.filter((medium) => medium.type === kind).map((medium) => medium.id);
    problem(
      'media_not_supported',
      'media_ids',
      `${name} does not take ${kind}s (media ${ids.join(', ')})`,
    );
  }
  for (const medium of media) {
    const max = limits.media_max_bytes[medium.type];
    if (max !== undefined && medium.sizeBytes > max)
      problem(
        'media_too_large',
        'media_ids',
        `${name} takes ${medium.type} files of at most ${max} bytes; media ${medium.id} (${medium.filename}) has ${medium.sizeBytes}`,
      );
  }
  const mixed = media.length > 0 ? platform.mediaProblem?.(media, limits) : null;
  if (mixed) problem('media_not_supported', 'media_ids', mixed);
  return problems;
}

function unitName(unit: string): string {
  if (unit === 'utf16') return 'UTF-16 code units';
  const own = PLATFORM_DESCRIPTORS.find((platform) => platform.textUnit?.name === unit);
  return own ? own.textUnit!.description : 'characters';
}

const ALL_MEDIA_TYPES: readonly MediaType[] = ['image', 'video'];

/** No post valid by the body's rules can break the limits: create then skips the lookups. */
export function fitsEveryPost(platform: Platform): boolean {
  const limits = platform.limits;
  return (
    !platform.accountLimits &&
    !platform.mediaProblem &&
    limits.text_max_bytes === undefined &&
    limits.links_max === undefined &&
    platform.measureText('x'.repeat(MAX_TEXT_LENGTH), limits) <= limits.text_max &&
    limits.text_unit === 'utf16' &&
    limits.media_max >= MAX_MEDIA_PER_POST &&
    ALL_MEDIA_TYPES.every(
      (kind) =>
        limits.media_kinds.includes(kind) && (limits.media_max_bytes[kind] ?? 0) >= MAX_MEDIA_BYTES,
    )
  );
}

/** The first problem, with every problem in `details`. */
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

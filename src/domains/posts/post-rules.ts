import { toChannelRef } from '../channels/channel-ref';
import { AppError, type ErrorCode, type ErrorDetail } from '../../http/errors/error-codes';
import type { MediaType } from '../media/media-asset.entity';
import { MAX_MEDIA_BYTES } from '../media/media-kinds';
import type { MediaToCheck, Platform } from '../platforms/platform';
import type { PlatformLimits } from '../platforms/platform-answers';
import { TEXT_UNITS } from '../platforms/platforms';
import type { ResolvedChannel } from './post-rows';
import { MAX_MEDIA_PER_POST, MAX_TEXT_LENGTH } from './post-state';
import { cutItems, MAX_MESSAGES_PER_TARGET, type ThreadContent } from '../platforms/thread-items';

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
/** What a post's targets' limits may answer at create, change and publish (400 each). */
export const LIMIT_ERRORS = [
  'text_too_long',
  'thread_not_supported',
  'too_many_media',
  'media_not_supported',
  'media_too_large',
  'too_many_links',
  'too_many_hashtags',
  'media_required',
] as const satisfies readonly ErrorCode[];

export function limitProblems(
  targets: readonly LimitedTarget[],
  content: ThreadContent<MediaToCheck>,
): PostProblem[] {
  const groups = new Map<string, LimitedTarget[]>();
  for (const target of targets) {
    const key = `${target.platform.name}:${JSON.stringify(target.limits)}`;
    groups.set(key, [...(groups.get(key) ?? []), target]);
  }
  return [...groups.values()].flatMap(([first]) => limitsOfOne(first, content));
}

function limitsOfOne(target: LimitedTarget, content: ThreadContent<MediaToCheck>): PostProblem[] {
  const { platform, limits, ref } = target;
  const name = platform.displayName;
  const problems: PostProblem[] = [];
  const problem = (code: ErrorCode, field: string, message: string) =>
    problems.push({ code, message, field, channel_ref: ref });
  const further = content.items.length - 1;
  if (further > 0 && platform.replies === 'none')
    problem('thread_not_supported', 'thread', `${name} takes no thread of replies`);
  if (further > 1 && platform.replies === 'first_comment')
    problem(
      'thread_not_supported',
      'thread',
      `${name} takes one first comment; this thread has ${further} items`,
    );
  let messages = 0;
  for (const { item, parts, media } of cutItems(platform, limits, content)) {
    const field = (own: string) => (item === 0 ? own : `thread[${item - 1}].${own}`);
    const text = content.items[item].text;
    messages += parts?.length ?? 1;
    if (parts === null)
      problem(
        'text_too_long',
        field('text'),
        `${name} takes at most ${limits.text_max} ${unitOf(limits)} in a message, and this text cannot be cut within ${MAX_MESSAGES_PER_TARGET} messages without cutting a word or a link`,
      );
    else if (!content.split)
      for (const message of textProblems(target, text))
        problem('text_too_long', field('text'), message);
    const links = linksProblem(target, text);
    if (links) problem('too_many_links', field('text'), links);
    const hashtags = hashtagsProblem(target, text);
    if (hashtags) problem('too_many_hashtags', field('text'), hashtags);
    if (item === 0 && media.length < (limits.media_min ?? 0))
      problem(
        'media_required',
        'media_ids',
        `${name} takes no post without media; add at least ${limits.media_min} (media_ids)`,
      );
    for (const [code, message] of mediaLimitProblems(target, media))
      problem(code, field('media_ids'), message);
  }
  if (messages > MAX_MESSAGES_PER_TARGET)
    problem(
      'text_too_long',
      further > 0 ? 'thread' : 'text',
      `On ${name} this post becomes ${messages} messages; a post and its thread are at most ${MAX_MESSAGES_PER_TARGET}`,
    );
  return problems;
}

function unitOf(limits: PlatformLimits): string {
  const unit = unitName(limits.text_unit);
  return limits.url_length ? `${unit}, each link counting ${limits.url_length}` : unit;
}

/** Where the platform limits a text's different links (`links_max`). */
function linksProblem({ platform, limits }: LimitedTarget, text: string): string | null {
  if (limits.links_max === undefined) return null;
  const links = platform.links?.(text) ?? [];
  if (links.length <= limits.links_max) return null;
  return `${platform.displayName} takes at most ${limits.links_max} different links in a message; this text has ${links.length}`;
}

const HASHTAG = /(?<![\p{L}\p{N}_&#])#[\p{L}\p{N}_]*\p{L}[\p{L}\p{N}_]*/gu;

/** Where the platform limits hashtags (`hashtags_max`): every one counts, repeats included. */
function hashtagsProblem({ platform, limits }: LimitedTarget, text: string): string | null {
  if (limits.hashtags_max === undefined) return null;
  const count = text.match(HASHTAG)?.length ?? 0;
  if (count <= limits.hashtags_max) return null;
  return `${platform.displayName} takes at most ${limits.hashtags_max} hashtags in a message; this text has ${count}`;
}

function textProblems({ platform, limits }: LimitedTarget, text: string): string[] {
  const name = platform.displayName;
  const messages: string[] = [];
  const length = platform.measureText(text, limits);
  if (length > limits.text_max)
    messages.push(
      `${name} takes at most ${limits.text_max} ${unitOf(limits)} of text; this text has ${length}`,
    );
  const bytes = Buffer.byteLength(text, 'utf8');
  if (limits.text_max_bytes !== undefined && bytes > limits.text_max_bytes)
    messages.push(
      `${name} takes at most ${limits.text_max_bytes} bytes of text (UTF-8); this text has ${bytes}`,
    );
  return messages;
}

function mediaLimitProblems(
  { platform, limits }: LimitedTarget,
  media: readonly MediaToCheck[],
): [ErrorCode, string][] {
  const name = platform.displayName;
  const problems: [ErrorCode, string][] = [];
  if (media.length > limits.media_max)
    problems.push([
      'too_many_media',
      `${name} takes at most ${limits.media_max} media files in a post; this post has ${media.length}`,
    ]);
  for (const kind of new Set(media.map((medium) => medium.type))) {
    if (limits.media_kinds.includes(kind)) continue;
    const ids = media.filter((medium) => medium.type === kind).map((medium) => medium.id);
    problems.push([
      'media_not_supported',
      `${name} does not take ${kind}s (media ${ids.join(', ')})`,
    ]);
  }
  for (const medium of media) {
    const max = limits.media_max_bytes[medium.type];
    if (max !== undefined && medium.sizeBytes > max)
      problems.push([
        'media_too_large',
        `${name} takes ${medium.type} files of at most ${max} bytes; media ${medium.id} (${medium.filename}) has ${medium.sizeBytes}`,
      ]);
  }
  const mixed = media.length > 0 ? platform.mediaProblem?.(media, limits) : null;
  if (mixed) problems.push(['media_not_supported', mixed]);
  return problems;
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
    limits.hashtags_max === undefined &&
    limits.media_min === undefined &&
    platform.measureText('z'.repeat(MAX_TEXT_LENGTH), limits) <= limits.text_max &&
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

/** Graphemes read as plain characters in a message; a platform's own unit says what it is. */
function unitName(name: string): string {
  if (name === 'graphemes') return 'characters';
  return TEXT_UNITS.find((unit) => unit.name === name)?.description ?? name;
}

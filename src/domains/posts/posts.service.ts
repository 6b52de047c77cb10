/**
 * Posts of a project and the start of their publication (docs/api-rules.md#post-states, and its
 * #post-rules). Used by the public API (public-posts.controller.ts) and by the application API.
 * Every method takes the caller's `ProjectAccess` (from @CurrentProject(), already checked by
 * PermissionGuard for the route's flag) and, where a post is created, the `Principal`; a post of
 * another project is `404 post_not_found`, exactly like one that does not exist.
 *
 * - `create(access, who, dto)`: the post rules; draft, `scheduled` (delayed job) or `queued` (job
 *   now). Scheduling or publish_now needs can_publish (checked here too, as 403 forbidden).
 * - `list(access, query)`: newest first, with per-target state; a `status` filter and signed
 *   keyset cursors (`next_cursor`).
 * - `get(access, postId)`: the post object (list item fields, updated_at, media).
 * - `update(access, postId, dto)`: only `draft` and `scheduled` posts (else 409 invalid_state).
 *   Fields given replace the stored ones and the post rules apply to the result; `scheduled_at`
 *   reschedules (the old delayed job never fires), `scheduled_at: null` turns a scheduled post
 *   back into a draft. Answers the post object. Both APIs use it (PATCH and PUT).
 * - `remove(access, postId)`: `draft`, `scheduled` or `failed` (else 409 invalid_state). Removing
 *   a post never deletes what was already sent to a platform.
 * - `publish(access, postId, dto)`: from draft, scheduled or failed; body targets replace the
 *   post's targets, but targets already published stay and are never sent again; 202 publishing.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Principal } from '../../access/principal';
import { type ChannelRefParts, parseChannelRef, toChannelRef } from '../channels/channel-ref';
import { isForeignKeyViolation } from '../../infrastructure/database/query-errors';
import { formatTimestamp, parseInputTimestamp } from '../../infrastructure/database/timestamps';
import { AppError } from '../../http/errors/error-codes';
import type { ProjectAccess } from '../../access/project-access';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { bodySetsAny } from '../../access/decorators';
import { MAX_DB_ID } from '../../http/errors/parse-id.pipe';
import { flattenValidationErrors, validationFailed } from '../../http/errors/validation';
import type { MediaToCheck, OutgoingMedia } from '../platforms/platform';
import { PlatformRegistry } from '../platforms/platform-registry';
import { CreatePostDto, MAX_CHANNEL_REF_LENGTH, type PostTargetDto } from './dto/create-post.dto';
import type {
  PostCreatedDto,
  PostListDto,
  PostObjectDto,
  PostValidationDto,
  PublishResultDto,
} from './dto/post-response.dto';
import type { PublishPostDto } from './dto/publish-post.dto';
import {
  DEFAULT_LIST_LIMIT,
  DELETABLE_FROM,
  EDITABLE_FROM,
  initialStatus,
  MAX_MEDIA_PER_POST,
  PUBLISHABLE_FROM,
  type PostStatus,
} from './post-state';
import { MediaService } from '../media/media.service';
import { SecretsService } from '../../infrastructure/config/secrets.service';
import { STORAGE_DRIVER, type StorageDriver } from '../../infrastructure/storage/storage-driver';
import type { ListPostsQuery } from './dto/list-posts.query';
import { decodeCursor, encodeCursor } from './post-cursor';
import { toPostCreated, toPostListItem, toPostObject } from './posts.mapper';
import {
  type NewPost,
  type PostRow,
  type PostScope,
  POST_NOT_FOUND,
  PostsRepository,
  type ResolvedChannel,
} from './posts.repository';
import {
  fitsEveryPost,
  limitProblems,
  type LimitedTarget,
  mediaProblems,
  type PostProblem,
  refusal,
  targetProblems,
} from './post-rules';
import { PublicationProducer } from '../publication/publication.queue';

/** The fields of an update (application API); absent fields keep their stored value. */
export interface UpdatePostInput {
  text?: string;
  targets?: PostTargetDto[];
  media_ids?: number[];
  scheduled_at?: string | null;
}

@Injectable()
export class PostsService {
  constructor(
    private readonly posts: PostsRepository,
    private readonly producer: PublicationProducer,
    private readonly media: MediaService,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    private readonly secrets: SecretsService,
    /** Each platform's publisher and limits. */
    private readonly platforms: PlatformRegistry,
  ) {}

  /** Per platform: whether its limits can refuse no post that passed the body's rules. */
  private readonly fitting = new Map<string, boolean>();

  async create(access: ProjectAccess, who: Principal, dto: CreatePostDto): Promise<PostCreatedDto> {
    const projectId = access.project.id;
    const status = initialStatus({ scheduledAt: dto.scheduled_at, publishNow: dto.publish_now });
    const publishing = status !== 'draft';
    if (publishing) this.requirePublish(access);
    const schedule = dto.scheduled_at ? parseInputTimestamp(dto.scheduled_at) : null;
    const refs = (dto.targets ?? []).map((t) => parseChannelRef(t.channel_ref));
    const input: NewPost = {
      scope: postScope(access),
      userId: who.user.id,
      text: dto.text ?? '',
      status,
      scheduledAt: schedule?.iso ?? null,
      publishAttempt: publishing ? 1 : 0,
      refs: refs as ChannelRefParts[],
      mediaIds: dto.media_ids ?? [],
      requireConnected: publishing,
    };
    // The insert checks the targets and media itself (one round trip); when it refuses, the
    // checked insert below says which rule failed and why.
    const fast = !refs.includes(null) && refs.every((ref) => this.fitsEveryPost(ref!.platform));
    const post =
      (fast && (await this.posts.insertPost(input).catch(refusedWhenGone))) ||
      (await this.insertChecked(projectId, dto, publishing, input));
    // Persist, then enqueue (see PublicationSweeper): a Redis outage never loses the post.
    if (publishing) await this.producer.enqueue(post.id, 1, schedule?.epochMs ?? null);
    return toPostCreated(post);
  }

  /**
   * The insert refused the post, or its platform's limits need its media and accounts read first:
   * the lookups say which rule failed. They run in one transaction with the channels and accounts
   * they read locked, so the insert that follows them sees what they saw, whatever other requests
   * and workers change meanwhile (media assets and projects are never deleted).
   */
  private insertChecked(
    projectId: number,
    dto: CreatePostDto,
    publishing: boolean,
    input: NewPost,
  ): Promise<PostRow> {
    return this.posts.transaction(async (m) => {
      const targets = await this.checkTargets(projectId, dto.targets ?? [], publishing, m);
      const media = await this.checkMedia(projectId, dto.media_ids ?? [], m);
      const problems = [
        ...targets.problems,
        ...media.problems,
        ...this.limitProblems(targets.channels, dto.text ?? '', media.assets),
      ];
      if (problems.length > 0) throw refusal(problems);
      const post = await this.posts.insertPost(input, m);
      if (!post) throw new Error('The post was refused although its checks passed');
      return post;
    });
  }

  /**
   * The dry run: the create body checked by create's own rules (its DTO, then the rules of
   * post-rules.ts on whatever parts are well formed), every problem at once, and how many messages
   * each known target would receive. Reads only: nothing is stored, queued or counted.
   */
  async validate(access: ProjectAccess, body: unknown): Promise<PostValidationDto> {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new AppError('validation_failed', 'The body must be a JSON object');
    const raw = body as Record<string, unknown>;
    const shape = flattenValidationErrors(
      await validate(plainToInstance(CreatePostDto, raw), CREATE_BODY_RULES),
    ).map((detail) => ({
      code: 'validation_failed' as const,
      message: `${detail.field}: ${detail.message}`,
      field: detail.field,
      channel_ref: null,
    }));
    const refs = wellFormedRefs(raw.targets);
    const mediaIds = wellFormedIds(raw.media_ids);
    const publishing = bodySetsAny(raw, ['scheduled_at', 'publish_now']);
    const projectId = access.project.id;
    const checked = await this.posts.transaction(async (m) => {
      const targets = await this.checkTargets(projectId, refs, publishing, m);
      const assets = await this.media.findForProject(projectId, mediaIds, m);
      return { targets, assets };
    });
    const text = typeof raw.text === 'string' ? raw.text : '';
    const errors = [
      ...shape,
      ...checked.targets.problems,
      ...mediaProblems(mediaIds, new Set(checked.assets.map((asset) => asset.id))),
      // A field the body's shape already refuses is not measured again against the platforms.
      ...this.limitProblems(checked.targets.channels, text, checked.assets).filter(
        (problem) => !shape.some((refused) => refused.field === problem.field),
      ),
    ];
    // A media asset is already what a platform's planner reads.
    const media: OutgoingMedia[] = checked.assets;
    return {
      valid: errors.length === 0,
      errors,
      targets: checked.targets.channels.map((channel) => ({
        channel_ref: toChannelRef(channel.platform, channel.account_id, channel.channel_id),
        platform: channel.platform,
        messages: this.platforms.get(channel.platform)?.publisher.plan(text, media).length ?? 0,
      })),
    };
  }

  /** One page, newest first; `next_cursor` continues it, null on the last page. */
  async list(access: ProjectAccess, query: ListPostsQuery = {}): Promise<PostListDto> {
    const limit = query.limit ?? DEFAULT_LIST_LIMIT;
    const scope = { projectId: access.project.id, status: query.status ?? null };
    const after =
      query.cursor === undefined
        ? null
        : decodeCursor(this.secrets.verifyToken(query.cursor), scope);
    if (query.cursor !== undefined && after === null)
      throw new AppError('validation_failed', 'cursor is not a cursor of this list', [
        { field: 'cursor', message: 'cursor is not a cursor of this list' },
      ]);
    // One row more than the page tells whether another page follows.
    const rows = await this.posts.list(postScope(access), {
      limit: limit + 1,
      status: scope.status,
      after,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toPostListItem),
      count: page.length,
      next_cursor:
        rows.length > limit
          ? encodeCursor((data) => this.secrets.signToken(data), scope, {
              createdAt: last.created_at,
              id: last.id,
            })
          : null,
    };
  }

  /** The post object. */
  async get(access: ProjectAccess, postId: number): Promise<PostObjectDto> {
    const post = await this.postObject(postScope(access), postId);
    if (!post) throw postNotFound();
    return post;
  }

  /** The post object that webhook events carry; null when the post is gone. */
  async postObject(scope: PostScope, postId: number): Promise<PostObjectDto | null> {
    const post = await this.posts.findWithDetails(scope, postId);
    return post ? toPostObject(post, (path) => this.storage.publicUrl(path)) : null;
  }

  async publish(
    access: ProjectAccess,
    postId: number,
    dto: PublishPostDto,
  ): Promise<PublishResultDto> {
    this.requirePublish(access);
    const projectId = access.project.id;
    const post = await this.posts.findForPublish(postScope(access), postId);
    if (!post) throw postNotFound();
    assertState(post, PUBLISHABLE_FROM);
    if (post.media_count > MAX_MEDIA_PER_POST) {
      throw new AppError(
        'too_many_media_files',
        `A post can be published with at most ${MAX_MEDIA_PER_POST} media files`,
      );
    }
    const targets = dto.targets ?? (await this.ownTargets(access, postId));
    // The checks and the write in one transaction: the channels stay as checked until it commits.
    const attempt = await this.posts.transaction(async (m) => {
      const { channels, problems } = await this.checkTargets(projectId, targets, true, m);
      const limited = channels.every((c) => this.fitsEveryPost(c.platform))
        ? []
        : this.limitProblems(
            channels,
            post.text,
            await this.posts.mediaOfPost(m, postScope(access), postId),
          );
      problems.push(...limited);
      if (problems.length > 0) throw refusal(problems);
      return this.posts.startPublication(m, postScope(access), postId, channels, PUBLISHABLE_FROM);
    });
    if (attempt === null) throw invalidState(post); // it changed state meanwhile
    // A scheduled post published early loses its delayed job (the attempt before this one).
    if (post.status === 'scheduled') await this.producer.cancel(postId, attempt - 1);
    await this.producer.enqueue(postId, attempt);
    return { id: postId, status: 'publishing', test: access.test };
  }

  /** A publish that names no targets goes to the post's own; a post without any is refused. */
  private async ownTargets(access: ProjectAccess, postId: number): Promise<PostTargetDto[]> {
    const post = await this.posts.findWithDetails(postScope(access), postId);
    if (!post) throw postNotFound();
    if (post.targets.length === 0)
      throw validationFailed([
        { field: 'targets', message: 'the post has no targets; name them in the body' },
      ]);
    return post.targets.map((target) => ({
      channel_ref: toChannelRef(target.platform, target.account_id, target.chat_id),
    }));
  }

  /**
   * PATCH (and the application API's PUT). Any edit of a post that is or becomes scheduled
   * starts a new publish attempt with a new delayed job: a job of the old attempt finds its
   * attempt gone and does nothing (PublicationRepository.claim), so the old time never fires and
   * a job firing during the edit either wins the row first (then this answers 409 invalid_state)
   * or waits for the row lock and then finds nothing to claim.
   */
  async update(
    access: ProjectAccess,
    postId: number,
    input: UpdatePostInput,
  ): Promise<PostObjectDto> {
    if (UPDATE_FIELDS.every((field) => input[field] === undefined))
      throw new AppError(
        'validation_failed',
        `The body must change at least one of ${UPDATE_FIELDS.join(', ')}`,
      );
    for (let round = 1; ; round++) {
      const done = await this.tryUpdate(access, postId, input);
      if (done) return this.get(access, postId);
      // Another change committed between our read and our lock: check the rules again on it.
      if (round === MAX_UPDATE_ROUNDS)
        throw new AppError('invalid_state', 'The post is being changed by another request');
    }
  }

  /** One round of update(); false when the post changed after it was read. */
  private async tryUpdate(
    access: ProjectAccess,
    postId: number,
    input: UpdatePostInput,
  ): Promise<boolean> {
    const projectId = access.project.id;
    const post = await this.posts.findWithDetails(postScope(access), postId);
    if (!post) throw postNotFound();
    assertState(post, EDITABLE_FROM);
    const reschedule = input.scheduled_at !== undefined;
    // The DTO has checked it (ScheduledAtRule: ISO 8601, future, at most a year ahead).
    const schedule = input.scheduled_at ? parseInputTimestamp(input.scheduled_at) : null;
    if (schedule) this.requirePublish(access);
    const status: PostStatus = reschedule ? (schedule ? 'scheduled' : 'draft') : post.status;
    const fireAtMs = schedule?.epochMs ?? storedEpochMs(post.scheduled_at);

    // The post rules, on the post as it would become.
    const text = input.text ?? post.text;
    const mediaIds = input.media_ids ?? post.media_ids;
    if (text.trim().length === 0 && mediaIds.length === 0)
      throw new AppError('validation_failed', 'text is required unless media_ids is non-empty', [
        { field: 'text', message: 'text is required unless media_ids is non-empty' },
      ]);
    const refs =
      input.targets ??
      post.targets.map((t) => ({ channel_ref: toChannelRef(t.platform, t.account_id, t.chat_id) }));
    if (status === 'scheduled' && refs.length === 0)
      throw new AppError('validation_failed', 'targets must be non-empty for a scheduled post', [
        { field: 'targets', message: 'targets must be non-empty for a scheduled post' },
      ]);

    const newAttempt = post.status === 'scheduled' || status === 'scheduled';
    const attempt = newAttempt ? post.publish_attempt + 1 : post.publish_attempt;
    const scope = postScope(access);
    const applied = await this.posts.transaction(async (m) => {
      const locked = await this.posts.findPost(scope, postId, m, true);
      if (!locked) throw postNotFound();
      assertState(locked, EDITABLE_FROM);
      if (locked.updated_at !== post.updated_at || locked.publish_attempt !== post.publish_attempt)
        return false;
      // Checked in the transaction: the channels stay as checked until it commits.
      const targets =
        input.targets !== undefined || status === 'scheduled'
          ? await this.checkTargets(projectId, refs, status === 'scheduled', m)
          : null;
      const media =
        input.media_ids !== undefined ? await this.checkMedia(projectId, input.media_ids, m) : null;
      const problems = [...(targets?.problems ?? []), ...(media?.problems ?? [])];
      // The platforms' limits, on the post as it would become.
      const platforms = refs.map((ref) => parseChannelRef(ref.channel_ref)?.platform ?? '');
      if (!platforms.every((platform) => this.fitsEveryPost(platform))) {
        const limited =
          targets?.channels ?? (await this.checkTargets(projectId, refs, false, m)).channels;
        const assets = media?.assets ?? (await this.media.findForProject(projectId, mediaIds, m));
        problems.push(...this.limitProblems(limited, text, assets));
      }
      if (problems.length > 0) throw refusal(problems);
      const channels = targets?.channels ?? null;
      await this.posts.updatePost(m, scope, postId, {
        text: input.text ?? null,
        status,
        scheduledAt: reschedule ? (schedule?.iso ?? null) : undefined,
        publishAttempt: attempt,
      });
      if (input.targets !== undefined && channels)
        await this.posts.replaceTargets(m, scope, postId, channels);
      if (input.media_ids !== undefined) await this.posts.replaceMedia(m, scope, postId, mediaIds);
      return true;
    });
    if (!applied) return false;
    if (newAttempt) {
      if (post.status === 'scheduled') await this.producer.cancel(postId, post.publish_attempt);
      if (status === 'scheduled') await this.producer.enqueue(postId, attempt, fireAtMs);
    }
    return true;
  }

  /**
   * Draft, scheduled or failed only; a scheduled post's job then finds no post and sends nothing.
   */
  async remove(access: ProjectAccess, postId: number): Promise<void> {
    const scope = postScope(access);
    const post = await this.findPost(scope, postId);
    assertState(post, DELETABLE_FROM);
    if (!(await this.posts.deletePost(scope, postId, DELETABLE_FROM))) {
      const now = await this.findPost(scope, postId);
      throw invalidState(now);
    }
    if (post.status === 'scheduled') await this.producer.cancel(postId, post.publish_attempt);
  }

  private requirePublish(access: ProjectAccess): void {
    if (!access.permissions.can_publish) throw AppError.forbidden('can_publish');
  }

  private async findPost(scope: PostScope, postId: number): Promise<PostRow> {
    const post = await this.posts.findPost(scope, postId);
    if (!post) throw postNotFound();
    return post;
  }

  /**
   * The post's targets under the rules of post-rules.ts: the project's channels among them, in
   * ref order, locked until the transaction `m` ends, and every problem found.
   */
  private async checkTargets(
    projectId: number,
    targets: readonly PostTargetDto[],
    publishing: boolean,
    m: EntityManager,
  ): Promise<{ channels: ResolvedChannel[]; problems: PostProblem[] }> {
    const refs = targets.map((t) => t.channel_ref);
    const parsed = refs.map(parseChannelRef).filter((r): r is ChannelRefParts => r !== null);
    const found = await this.posts.findChannels(m, projectId, parsed);
    // A ref that parses is exactly its channel's toChannelRef(), so the refs themselves are keys.
    const byRef = new Map(
      found.map((c) => [toChannelRef(c.platform, c.account_id, c.channel_id), c]),
    );
    return {
      channels: refs.flatMap((ref) => byRef.get(ref) ?? []),
      problems: targetProblems(refs, found, publishing),
    };
  }

  /**
   * The media ids' problems (post-rules.ts). Read in the transaction `m`, on its connection: a
   * request that holds one never waits for a second from the pool.
   */
  private async checkMedia(
    projectId: number,
    ids: readonly number[],
    m: EntityManager,
  ): Promise<{ assets: MediaToCheck[]; problems: PostProblem[] }> {
    const assets = await this.media.findForProject(projectId, ids, m);
    return { assets, problems: mediaProblems(ids, new Set(assets.map((asset) => asset.id))) };
  }

  /** The targets' platforms' limits on this text and media (post-rules.ts). */
  private limitProblems(
    channels: readonly ResolvedChannel[],
    text: string,
    media: readonly MediaToCheck[],
  ): PostProblem[] {
    const targets: LimitedTarget[] = channels.flatMap((channel) => {
      const platform = this.platforms.get(channel.platform);
      if (!platform) return [];
      const ref = toChannelRef(channel.platform, channel.account_id, channel.channel_id);
      return [{ ref, platform, limits: channel.limits ?? platform.limits }];
    });
    return limitProblems(targets, text, media);
  }

  /**
   * Whether no post the body's rules let through can break the platform's limits (post-rules.ts).
   */
  private fitsEveryPost(platformName: string): boolean {
    let fits = this.fitting.get(platformName);
    if (fits === undefined) {
      const platform = this.platforms.get(platformName);
      fits = platform ? fitsEveryPost(platform) : true;
      this.fitting.set(platformName, fits);
    }
    return fits;
  }
}

/** How the create body is checked (createValidationPipe's options), for the dry run. */
const CREATE_BODY_RULES = { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: false };

/** The refs of a targets list that are strings; the DTO's problems name the rest. */
function wellFormedRefs(targets: unknown): PostTargetDto[] {
  if (!Array.isArray(targets)) return [];
  const refs = targets
    .map((t: unknown) => (t as { channel_ref?: unknown } | null)?.channel_ref)
    .filter(
      (ref): ref is string => typeof ref === 'string' && ref.length <= MAX_CHANNEL_REF_LENGTH,
    );
  return [...new Set(refs)].map((channel_ref) => ({ channel_ref }));
}

/** The media ids that are positive database ids; the DTO's problems name the rest. */
function wellFormedIds(ids: unknown): number[] {
  if (!Array.isArray(ids)) return [];
  return [
    ...new Set(
      ids.filter((id): id is number => Number.isInteger(id) && id >= 1 && id <= MAX_DB_ID),
    ),
  ];
}

/** The fields of an update; an update that names none of them is refused. */
const UPDATE_FIELDS = ['text', 'media_ids', 'targets', 'scheduled_at'] as const;

/** Rounds of update() when concurrent edits keep changing the post under it. */
const MAX_UPDATE_ROUNDS = 3;

/** Epoch milliseconds of a stored timestamp (the database's text), or null. */
function storedEpochMs(raw: string | null): number | null {
  const formatted = formatTimestamp(raw);
  return formatted === null ? null : (parseInputTimestamp(formatted)?.epochMs ?? null);
}

/**
 * The caller's project, and the caller's kind of post (test or live); the other kind is not found.
 */
function postScope(access: ProjectAccess): PostScope {
  return { projectId: access.project.id, test: access.test };
}

/**
 * The one-statement insert failed because a channel's account it refers to was deleted while it
 * ran: a refusal like any other, which the checked insert explains.
 */
function refusedWhenGone(error: unknown): null {
  if (isForeignKeyViolation(error)) return null;
  throw error;
}

function postNotFound(): AppError {
  return new AppError(POST_NOT_FOUND.code, POST_NOT_FOUND.message);
}

function invalidState(post: PostRow): AppError {
  return new AppError('invalid_state', `This cannot be done while the post is ${post.status}`);
}

function assertState(post: PostRow, allowed: readonly string[]): void {
  if (!allowed.includes(post.status)) throw invalidState(post);
}

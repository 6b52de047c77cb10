/** Posts of a project and the start of their publication (docs/api-rules.md#post-states). */
import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '../../access/principal';
import { type ChannelRefParts, parseChannelRef, toChannelRef } from '../channels/channel-ref';
import { isForeignKeyViolation } from '../../infrastructure/database/query-errors';
import { formatTimestamp, parseInputTimestamp } from '../../infrastructure/database/timestamps';
import { AppError } from '../../http/errors/error-codes';
import type { ProjectAccess } from '../../access/project-access';
import { validationFailed } from '../../http/errors/validation';
import type { CreatePostDto, PostTargetDto, ThreadItemDto } from './dto/create-post.dto';
import type {
  PostCreatedDto,
  PostListDto,
  PostObjectDto,
  PublishResultDto,
} from './dto/post-response.dto';
import type { PublishPostDto } from './dto/publish-post.dto';
import {
  DEFAULT_LIST_LIMIT,
  DELETABLE_FROM,
  EDITABLE_FROM,
  initialStatus,
  MAX_MEDIA_PER_POST,
  MAX_TEXT_LENGTH,
  PUBLISHABLE_FROM,
  type PostStatus,
} from './post-state';
import { SecretsService } from '../../infrastructure/config/secrets.service';
import { STORAGE_DRIVER, type StorageDriver } from '../../infrastructure/storage/storage-driver';
import type { ListPostsQuery } from './dto/list-posts.query';
import { decodeCursor, encodeCursor } from './post-cursor';
import { toPostCreated, toPostListItem, toPostObject } from './posts.mapper';
import { POST_NOT_FOUND, PostsRepository } from './posts.repository';
import type { NewPost, PostRow, PostScope, ThreadItemRow } from './post-rows';
import { PostChecks, problemsOf } from './post-checks';
import { PostInserts } from './post-inserts.repository';
import { refusal } from './post-rules';
import { PublicationProducer } from '../publication/publication.queue';

/** Absent fields keep their stored value. */
export interface UpdatePostInput {
  text?: string;
  targets?: PostTargetDto[];
  media_ids?: number[];
  thread?: ThreadItemDto[];
  split_long_text?: boolean;
  scheduled_at?: string | null;
}

@Injectable()
export class PostsService {
  constructor(
    private readonly posts: PostsRepository,
    private readonly inserts: PostInserts,
    private readonly producer: PublicationProducer,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    private readonly secrets: SecretsService,
    private readonly checks: PostChecks,
  ) {}

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
    // The insert checks targets and media itself; when it refuses, the checked insert says why.
    const fast =
      this.checks.insertChecksEnough(refs) && !dto.thread?.length && !dto.split_long_text;
    const post =
      (fast && (await this.inserts.insertPost(input).catch(refusedWhenGone))) ||
      (await this.insertChecked(projectId, dto, publishing, input));
    // Persist, then enqueue (see PublicationSweeper): a Redis outage never loses the post.
    if (publishing) await this.producer.enqueue(post.id, 1, schedule?.epochMs ?? null);
    return toPostCreated(post);
  }

  /** One transaction with channels and accounts locked, so the insert sees what the checks saw. */
  private insertChecked(
    projectId: number,
    dto: CreatePostDto,
    publishing: boolean,
    input: NewPost,
  ): Promise<PostRow> {
    return this.posts.transaction(async (m) => {
      const thread = threadOf(dto.thread);
      const split = dto.split_long_text ?? false;
      const check = await this.checks.check(m, projectId, {
        refs: dto.targets ?? [],
        text: dto.text ?? '',
        mediaIds: dto.media_ids ?? [],
        publishing,
        thread,
        split,
      });
      const problems = problemsOf(check);
      if (problems.length > 0) throw refusal(problems);
      const post = await this.inserts.insertPost(input, m);
      if (!post) throw new Error('The post was refused although its checks passed');
      if (thread.length === 0 && !split) return post;
      await this.posts.setThread(m, post.id, thread, split);
      return { ...post, thread, split_long_text: split };
    });
  }

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

  async get(access: ProjectAccess, postId: number): Promise<PostObjectDto> {
    const post = await this.postObject(postScope(access), postId);
    if (!post) throw postNotFound();
    return post;
  }

  /** Null when the post is gone. */
  async postObject(scope: PostScope, postId: number): Promise<PostObjectDto | null> {
    const post = await this.posts.findWithDetails(scope, postId);
    return post ? toPostObject(post, (path) => this.storage.publicUrl(path)) : null;
  }

  /** By post id; a post that is gone is not among them. */
  async postObjects(scope: PostScope, postIds: number[]): Promise<Map<number, PostObjectDto>> {
    const posts = await this.posts.findManyWithDetails(scope, postIds);
    const publicUrl = (path: string) => this.storage.publicUrl(path);
    return new Map(posts.map((post) => [post.id, toPostObject(post, publicUrl)]));
  }

  async publish(
    access: ProjectAccess,
    postId: number,
    dto: PublishPostDto,
  ): Promise<PublishResultDto> {
    this.requirePublish(access);
    const projectId = access.project.id;
    const scope = postScope(access);
    const post = await this.posts.findForPublish(scope, postId);
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
      const check = await this.checks.check(
        m,
        projectId,
        {
          refs: targets,
          text: post.text,
          mediaIds: [],
          publishing: true,
          thread: post.thread,
          split: post.split_long_text,
        },
        {
          targets: true,
          media: false,
          storedMedia: (n) => this.posts.mediaOfPost(n, scope, postId),
        },
      );
      const problems = problemsOf(check);
      if (problems.length > 0) throw refusal(problems);
      const own = dto.targets === undefined; // its own targets: those on a removed account stay
      return this.posts.startPublication(m, scope, postId, check.channels, PUBLISHABLE_FROM, own);
    });
    if (attempt === null) throw invalidState(post); // it changed state meanwhile
    if (post.status === 'scheduled') await this.producer.cancel(postId, attempt - 1);
    await this.producer.enqueue(postId, attempt);
    return { id: postId, status: 'publishing', test: access.test };
  }

  private async ownTargets(access: ProjectAccess, postId: number): Promise<PostTargetDto[]> {
    const post = await this.posts.findWithDetails(postScope(access), postId);
    if (!post) throw postNotFound();
    if (post.targets.length === 0)
      throw validationFailed([
        { field: 'targets', message: 'the post has no targets; name them in the body' },
      ]);
    // Those on a removed account stay as they are (startPublication), not checked as named.
    return post.targets.flatMap((t) =>
      t.account_removed ? [] : [{ channel_ref: toChannelRef(t.platform, t.account_id, t.chat_id) }],
    );
  }

  /** Each edit of a scheduled post is a new attempt: the old delayed job finds nothing to claim. */
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
      if (round === MAX_UPDATE_ROUNDS)
        throw new AppError('invalid_state', 'The post is being changed by another request');
    }
  }

  /** False when the post changed after it was read. */
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
    const schedule = input.scheduled_at ? parseInputTimestamp(input.scheduled_at) : null;
    if (schedule) this.requirePublish(access);
    const status: PostStatus = reschedule ? (schedule ? 'scheduled' : 'draft') : post.status;
    const fireAtMs = schedule?.epochMs ?? storedEpochMs(post.scheduled_at);

    const text = input.text ?? post.text;
    const mediaIds = input.media_ids ?? post.media_ids;
    const thread = input.thread ? threadOf(input.thread) : post.thread;
    const split = input.split_long_text ?? post.split_long_text;
    if (!split && text.length > MAX_TEXT_LENGTH)
      throw validationFailed([
        { field: 'text', message: `text must be at most ${MAX_TEXT_LENGTH} characters` },
      ]);
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
      const check = await this.checks.check(
        m,
        projectId,
        { refs, text, mediaIds, publishing: status === 'scheduled', thread, split },
        {
          targets: input.targets !== undefined || status === 'scheduled',
          media: input.media_ids !== undefined,
        },
      );
      const problems = problemsOf(check);
      if (problems.length > 0) throw refusal(problems);
      await this.posts.updatePost(m, scope, postId, {
        text: input.text ?? null,
        status,
        scheduledAt: reschedule ? (schedule?.iso ?? null) : undefined,
        publishAttempt: attempt,
      });
      if (input.targets !== undefined)
        await this.posts.replaceTargets(m, scope, postId, check.channels);
      if (input.media_ids !== undefined) await this.posts.replaceMedia(m, scope, postId, mediaIds);
      if (input.thread !== undefined || input.split_long_text !== undefined)
        await this.posts.setThread(m, postId, thread, split);
      return true;
    });
    if (!applied) return false;
    if (newAttempt) {
      if (post.status === 'scheduled') await this.producer.cancel(postId, post.publish_attempt);
      if (status === 'scheduled') await this.producer.enqueue(postId, attempt, fireAtMs);
    }
    return true;
  }

  /** A scheduled post's job then finds no post and sends nothing. */
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
}

const UPDATE_FIELDS = [
  'text',
  'media_ids',
  'targets',
  'thread',
  'split_long_text',
  'scheduled_at',
] as const;

/** As stored and answered: `media_ids` always present. */
function threadOf(thread: readonly ThreadItemDto[] | undefined): ThreadItemRow[] {
  return (thread ?? []).map((item) => ({ text: item.text, media_ids: item.media_ids ?? [] }));
}

const MAX_UPDATE_ROUNDS = 3;

function storedEpochMs(raw: string | null): number | null {
  const formatted = formatTimestamp(raw);
  return formatted === null ? null : (parseInputTimestamp(formatted)?.epochMs ?? null);
}

/** The other kind of post (test or live) is not found. */
function postScope(access: ProjectAccess): PostScope {
  return { projectId: access.project.id, test: access.test };
}

/** An account deleted while the insert ran: a refusal, which the checked insert explains. */
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

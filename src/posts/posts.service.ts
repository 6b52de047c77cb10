/**
 * Posts of a project (D7, D8, D9) and the start of their publication. Used by the public API
 * (public-posts.controller.ts) and by the application API (issue 6). Every method takes the
 * caller's `ProjectAccess` (from @CurrentProject(), already checked by PermissionGuard for the
 * route's flag) and, where a post is created, the `Principal`; a post of another project is
 * `404 post_not_found`, exactly like one that does not exist.
 *
 * - `create(access, who, dto)`: D8 rules; draft, `scheduled` (delayed job) or `queued` (job now).
 *   Scheduling or publish_now needs can_publish (checked here too, as 403 forbidden).
 * - `list(access, limit)`: D9, newest first, with per-target state.
 * - `get(access, postId)`: the post object of D19 (list item fields, updated_at, media).
 * - `update(access, postId, dto)`: only `draft` and `scheduled` posts (else 409 invalid_state).
 *   Fields given replace the stored ones; `scheduled_at` reschedules (the old delayed job is
 *   dropped), `scheduled_at: null` turns a scheduled post back into a draft. Answers the post object.
 * - `remove(access, postId)`: any state but `queued` and `publishing` (a job is in hand: 409).
 *   Removing a post never deletes what was already sent to a platform.
 * - `publish(access, postId, dto)`: D7 from draft, scheduled or failed; body targets replace the
 *   post's targets, but targets already published stay and are never sent again; 202 publishing.
 *
 * It also registers the `post` project resolver: `@RequirePermission(flag, { resource: 'post',
 * param: 'id' })` finds a post's project (404 post_not_found when there is none).
 */
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { Principal } from '../auth/principal';
import { type ChannelRefParts, parseChannelRef, toChannelRef } from '../channels/channel-ref';
import { parseInputTimestamp } from '../database/timestamps';
import { AppError } from '../errors/error-codes';
import { ProjectResolvers } from '../members/project-resolvers';
import type { ProjectAccess } from '../projects/project-access';
import type { CreatePostDto, PostTargetDto } from './dto/create-post.dto';
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
  PUBLISHABLE_FROM,
} from './post-state';
import { MediaService } from '../media/media.service';
import { STORAGE_DRIVER, type StorageDriver } from '../storage/storage-driver';
import { toPostCreated, toPostListItem, toPostObject } from './posts.mapper';
import { PostsRepository, type PostRow, type ResolvedChannel } from './posts.repository';
import { PublicationProducer } from './publication/publication.queue';

/** The fields of an update (application API); absent fields keep their stored value. */
export interface UpdatePostInput {
  text?: string;
  targets?: PostTargetDto[];
  media_ids?: number[];
  scheduled_at?: string | null;
}

@Injectable()
export class PostsService implements OnModuleInit {
  constructor(
    private readonly posts: PostsRepository,
    private readonly producer: PublicationProducer,
    private readonly resolvers: ProjectResolvers,
    private readonly media: MediaService,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
  ) {}

  onModuleInit(): void {
    // `@RequirePermission(flag, { resource: 'post', param: 'id' })` on application routes.
    this.resolvers.register('post', {
      resolve: (id) => this.posts.projectOfPost(id),
      notFound: { code: 'post_not_found', message: 'Post not found' },
    });
  }

  async create(access: ProjectAccess, who: Principal, dto: CreatePostDto): Promise<PostCreatedDto> {
    const projectId = access.project.id;
    const status = initialStatus({ scheduledAt: dto.scheduled_at, publishNow: dto.publish_now });
    const publishing = status !== 'draft';
    if (publishing) this.requirePublish(access);
    const channels = await this.resolveTargets(projectId, dto.targets ?? [], publishing);
    const mediaIds = await this.resolveMedia(projectId, dto.media_ids ?? []);
    const schedule = dto.scheduled_at ? parseInputTimestamp(dto.scheduled_at) : null;

    const post = await this.posts.insertPost({
      projectId,
      userId: who.user.id,
      text: dto.text ?? '',
      status,
      scheduledAt: schedule?.iso ?? null,
      publishAttempt: publishing ? 1 : 0,
      channels,
      mediaIds,
    });
    // Persist, then enqueue (see PublicationSweeper): a Redis outage never loses the post.
    if (publishing) await this.producer.enqueue(post.id, 1, schedule?.epochMs ?? null);
    return toPostCreated(post);
  }

  async list(access: ProjectAccess, limit = DEFAULT_LIST_LIMIT): Promise<PostListDto> {
    const items = (await this.posts.list(access.project.id, limit)).map(toPostListItem);
    return { items, count: items.length };
  }

  /** The post object (D19). */
  async get(access: ProjectAccess, postId: number): Promise<PostObjectDto> {
    const post = await this.posts.findWithDetails(access.project.id, postId);
    if (!post) throw postNotFound();
    return toPostObject(post, (path) => this.storage.publicUrl(path));
  }

  async publish(
    access: ProjectAccess,
    postId: number,
    dto: PublishPostDto,
  ): Promise<PublishResultDto> {
    this.requirePublish(access);
    const projectId = access.project.id;
    const post = await this.posts.findForPublish(projectId, postId);
    if (!post) throw postNotFound();
    assertState(post, PUBLISHABLE_FROM);
    if (post.media_count > MAX_MEDIA_PER_POST) {
      throw new AppError(
        'too_many_media_files',
        `A post can be published with at most ${MAX_MEDIA_PER_POST} media files`,
      );
    }
    const channels = await this.resolveTargets(projectId, dto.targets, true);
    const attempt = await this.posts.startPublication(
      projectId,
      postId,
      channels,
      PUBLISHABLE_FROM,
    );
    if (attempt === null) throw invalidState(post); // it changed state meanwhile
    // D7: a scheduled post published early loses its delayed job (the attempt before this one).
    if (post.status === 'scheduled') await this.producer.cancel(postId, attempt - 1);
    await this.producer.enqueue(postId, attempt);
    return { id: postId, status: 'publishing' };
  }

  async update(
    access: ProjectAccess,
    postId: number,
    input: UpdatePostInput,
  ): Promise<PostObjectDto> {
    const projectId = access.project.id;
    const post = await this.findPost(projectId, postId);
    assertState(post, EDITABLE_FROM);
    const reschedule = input.scheduled_at !== undefined;
    // AppUpdatePostDto has checked it (ScheduledAtRule: ISO 8601, future, at most a year ahead).
    const schedule = input.scheduled_at ? parseInputTimestamp(input.scheduled_at) : null;
    const status = reschedule ? (schedule ? 'scheduled' : 'draft') : post.status;
    if (reschedule && schedule) this.requirePublish(access);
    const channels =
      input.targets === undefined
        ? null
        : await this.resolveTargets(projectId, input.targets, status === 'scheduled');
    const mediaIds =
      input.media_ids === undefined ? null : await this.resolveMedia(projectId, input.media_ids);

    const updated = await this.posts.transaction(async (m) => {
      const locked = await this.posts.findPost(projectId, postId, m, true);
      if (!locked) throw postNotFound();
      assertState(locked, EDITABLE_FROM);
      const attempt = reschedule ? locked.publish_attempt + 1 : locked.publish_attempt;
      await this.posts.updatePost(m, postId, {
        text: input.text ?? null,
        status,
        scheduledAt: reschedule ? (schedule?.iso ?? null) : undefined,
        publishAttempt: attempt,
      });
      if (channels) await this.posts.replaceTargets(m, postId, channels);
      if (mediaIds) await this.posts.replaceMedia(m, postId, mediaIds);
      return { before: locked, attempt };
    });
    if (reschedule) {
      if (updated.before.status === 'scheduled')
        await this.producer.cancel(postId, updated.before.publish_attempt);
      if (schedule) await this.producer.enqueue(postId, updated.attempt, schedule.epochMs);
    }
    return this.get(access, postId);
  }

  async remove(access: ProjectAccess, postId: number): Promise<void> {
    const post = await this.findPost(access.project.id, postId);
    assertState(post, DELETABLE_FROM);
    if (!(await this.posts.deletePost(postId, DELETABLE_FROM))) throw invalidState(post);
    if (post.status === 'scheduled') await this.producer.cancel(postId, post.publish_attempt);
  }

  private requirePublish(access: ProjectAccess): void {
    if (!access.permissions.can_publish) throw AppError.forbidden('can_publish');
  }

  private async findPost(projectId: number, postId: number): Promise<PostRow> {
    const post = await this.posts.findPost(projectId, postId);
    if (!post) throw postNotFound();
    return post;
  }

  /**
   * D8: every ref a channel of this project (400 channel_not_found), one platform (400
   * mixed_platforms), and, when the post is to be published or scheduled, no channel whose
   * account needs reconnecting (400 channel_needs_reconnect). Channels come back in ref order.
   */
  private async resolveTargets(
    projectId: number,
    targets: PostTargetDto[],
    publishing: boolean,
  ): Promise<ResolvedChannel[]> {
    const refs = targets.map((t) => t.channel_ref);
    const parsed = refs.map(parseChannelRef);
    const unparsable = parsed.indexOf(null);
    if (unparsable !== -1) throw channelNotFound(refs[unparsable]);
    const found = await this.posts.findChannels(projectId, parsed as ChannelRefParts[]);
    // A ref that parses is exactly its channel's toChannelRef(), so the refs themselves are keys.
    const byRef = new Map(
      found.map((c) => [toChannelRef(c.platform, c.account_id, c.channel_id), c]),
    );
    const channels = refs.map((ref) => {
      const channel = byRef.get(ref);
      if (!channel) throw channelNotFound(ref);
      return channel;
    });
    if (new Set(channels.map((c) => c.platform)).size > 1)
      throw new AppError('mixed_platforms', 'All targets of a post must be on one platform');
    const stale = channels.find((c) => c.needs_reconnect);
    if (publishing && stale) {
      throw new AppError(
        'channel_needs_reconnect',
        `The account of channel ${toChannelRef(stale.platform, stale.account_id, stale.channel_id)} must be reconnected first`,
      );
    }
    return channels;
  }

  /** D8: each id a media asset of this project (400 media_not_found); order kept. */
  private async resolveMedia(projectId: number, ids: number[]): Promise<number[]> {
    const found = new Set(
      (await this.media.findForProject(projectId, ids)).map((asset) => asset.id),
    );
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0)
      throw new AppError(
        'media_not_found',
        `Media not found in this project: ${missing.join(', ')}`,
      );
    return ids;
  }
}

function postNotFound(): AppError {
  return new AppError('post_not_found', 'Post not found');
}

function channelNotFound(ref: string): AppError {
  return new AppError('channel_not_found', `Channel ${ref} is not a channel of this project`);
}

function invalidState(post: PostRow): AppError {
  return new AppError('invalid_state', `This cannot be done while the post is ${post.status}`);
}

function assertState(post: PostRow, allowed: readonly string[]): void {
  if (!allowed.includes(post.status)) throw invalidState(post);
}

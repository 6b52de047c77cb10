import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { type ChannelRefParts, parseChannelRef, toChannelRef } from '../channels/channel-ref';
import type { MediaAsset } from '../media/media-asset.entity';
import { MediaService } from '../media/media.service';
import type { MediaToCheck } from '../platforms/platform';
import { PlatformRegistry } from '../platforms/platform-registry';
import type { PostTargetDto } from './dto/create-post.dto';
import {
  fitsEveryPost,
  limitProblems,
  type LimitedTarget,
  mediaProblems,
  type PostProblem,
  targetProblems,
} from './post-rules';
import { PostsRepository } from './posts.repository';
import type { ResolvedChannel, ThreadItemRow } from './post-rows';
import type { ThreadContent } from '../platforms/thread-items';

export interface PostDraft {
  refs: readonly PostTargetDto[];
  text: string;
  mediaIds: readonly number[];
  /** Scheduled or published now: its targets' accounts must be connected. */
  publishing: boolean;
  thread?: readonly ThreadItemRow[];
  split?: boolean;
}

/** Parts the post already had are only measured against the limits, read by `storedMedia`. */
export interface CheckedParts {
  targets: boolean;
  media: boolean;
  storedMedia?: (m: EntityManager) => Promise<MediaToCheck[]>;
}

export interface PostCheck {
  /** In ref order, locked until the transaction ends. */
  channels: ResolvedChannel[];
  assets: MediaToCheck[];
  /** Only when they were read. */
  found: MediaAsset[];
  /** Each thread item's media, in its order. */
  threadMedia: MediaAsset[][];
  problems: PostProblem[];
  limits: PostProblem[];
}

export function problemsOf(check: PostCheck): PostProblem[] {
  return [...check.problems, ...check.limits];
}

const ALL_NEW: CheckedParts = { targets: true, media: true };

/** docs/api-rules.md#post-rules, read in the caller's transaction with the channels locked. */
@Injectable()
export class PostChecks {
  private readonly fitting = new Map<string, boolean>();

  constructor(
    private readonly posts: PostsRepository,
    private readonly media: MediaService,
    private readonly platforms: PlatformRegistry,
  ) {}

  /** Refs that parse, to platforms no well-formed body can break: the insert checks enough. */
  insertChecksEnough(refs: readonly (ChannelRefParts | null)[]): boolean {
    return refs.every((ref) => ref !== null && this.fitsEveryPost(ref.platform));
  }

  async check(
    m: EntityManager,
    projectId: number,
    draft: PostDraft,
    parts: CheckedParts = ALL_NEW,
  ): Promise<PostCheck> {
    const problems: PostProblem[] = [];
    const refs = draft.refs.map((ref) => ref.channel_ref);
    const parsed = refs.map(parseChannelRef);
    const thread = draft.thread ?? [];
    const limited =
      thread.length > 0 ||
      draft.split === true ||
      !parsed.every((ref) => this.fitsEveryPost(ref?.platform ?? ''));
    let channels: ResolvedChannel[] = [];
    if (parts.targets || limited) {
      const targets = await this.targets(m, projectId, refs, parsed, draft.publishing);
      channels = targets.channels;
      if (parts.targets) problems.push(...targets.problems);
    }
    let assets: MediaToCheck[] = [];
    let found: MediaAsset[] = [];
    if (parts.storedMedia) {
      if (limited) assets = await parts.storedMedia(m);
    } else if (parts.media || limited) {
      assets = found = await this.media.findForProject(projectId, draft.mediaIds, m);
      const ids = new Set(found.map((asset) => asset.id));
      if (parts.media) problems.push(...mediaProblems(draft.mediaIds, ids));
    }
    const threadMedia = await this.threadMedia(m, projectId, thread, problems);
    const content = {
      items: [
        { text: draft.text, media: assets },
        ...thread.map((item, i) => ({ text: item.text, media: threadMedia[i] })),
      ],
      split: draft.split ?? false,
    };
    const limits = limited ? this.limitProblems(channels, content) : [];
    return { channels, assets, found, threadMedia, problems, limits };
  }

  /** Every item's media, read at once; an id that is not the project's is named by its item. */
  private async threadMedia(
    m: EntityManager,
    projectId: number,
    thread: readonly ThreadItemRow[],
    problems: PostProblem[],
  ): Promise<MediaAsset[][]> {
    const ids = [...new Set(thread.flatMap((item) => item.media_ids))];
    if (ids.length === 0) return thread.map(() => []);
    const byId = new Map(
      (await this.media.findForProject(projectId, ids, m)).map((asset) => [asset.id, asset]),
    );
    return thread.map((item, i) => {
      for (const problem of mediaProblems(item.media_ids, new Set(byId.keys())))
        problems.push({ ...problem, field: `thread[${i}].media_ids` });
      return item.media_ids.flatMap((id) => byId.get(id) ?? []);
    });
  }

  private async targets(
    m: EntityManager,
    projectId: number,
    refs: readonly string[],
    parsed: readonly (ChannelRefParts | null)[],
    publishing: boolean,
  ): Promise<{ channels: ResolvedChannel[]; problems: PostProblem[] }> {
    const wellFormed = parsed.filter((r): r is ChannelRefParts => r !== null);
    const found = await this.posts.findChannels(m, projectId, wellFormed);
    // A ref that parses is exactly its channel's toChannelRef(), so the refs themselves are keys.
    const byRef = new Map(
      found.map((c) => [toChannelRef(c.platform, c.account_id, c.channel_id), c]),
    );
    return {
      channels: refs.flatMap((ref) => byRef.get(ref) ?? []),
      problems: targetProblems(refs, found, publishing),
    };
  }

  private limitProblems(
    channels: readonly ResolvedChannel[],
    content: ThreadContent<MediaToCheck>,
  ): PostProblem[] {
    const targets: LimitedTarget[] = channels.flatMap((channel) => {
      const platform = this.platforms.get(channel.platform);
      if (!platform) return [];
      const ref = toChannelRef(channel.platform, channel.account_id, channel.channel_id);
      return [{ ref, platform, limits: channel.limits ?? platform.limits }];
    });
    return limitProblems(targets, content);
  }

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

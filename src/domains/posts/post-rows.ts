import type { DbTimestamp } from '../../infrastructure/database/timestamps';
import type { ChannelRefParts } from '../channels/channel-ref';
import type { MediaType } from '../media/media-asset.entity';
import type { PlatformLimits, SentMessage } from '../platforms/platform-answers';
import type { PostStatus, TargetStatus } from './post-state';

/** One item of a post's `thread`, as stored and answered. */
export interface ThreadItemRow {
  text: string;
  media_ids: number[];
}

/** Snake_case, timestamps as the database's text. */
export interface PostRow {
  id: number;
  project_id: number;
  created_by_user_id: number | null;
  text: string;
  status: PostStatus;
  scheduled_at: DbTimestamp | null;
  published_at: DbTimestamp | null;
  publish_attempt: number;
  created_at: DbTimestamp;
  updated_at: DbTimestamp;
  test: boolean;
  thread: ThreadItemRow[];
  split_long_text: boolean;
}

export interface TargetRow {
  id: number;
  post_id: number;
  channel_id: number | null;
  platform: string;
  account_id: number;
  chat_id: string;
  position: number;
  status: TargetStatus;
  error_code: string | null;
  error_message: string | null;
  message_ids: number[];
  messages: SentMessage[];
  steps_done: number;
  published_at: DbTimestamp | null;
  /** Its account was removed: the target keeps its history, and can no longer be delivered. */
  account_removed: boolean;
}

export interface PostKey {
  createdAt: DbTimestamp;
  id: number;
}

export interface ResolvedChannel {
  id: number;
  platform: string;
  account_id: number;
  channel_id: string;
  needs_reconnect: boolean;
  /** Null where its platform's apply. */
  limits: PlatformLimits | null;
}

export interface MediaRow {
  id: number;
  type: MediaType;
  filename: string;
  mime_type: string;
  size_bytes: number;
  storage_path: string;
}

export interface PostMediaRow {
  id: number;
  type: MediaType;
  mime_type: string;
  alt_text: string | null;
  storage_path: string;
}

/** One project's posts of one kind, test or live (docs/api-rules.md#test-mode). */
export interface PostScope {
  projectId: number;
  test: boolean;
}

export interface PostWithDetails extends PostRow {
  targets: TargetRow[];
  media_ids: number[];
  media: PostMediaRow[];
}

/** Targets as channel refs and media as asset ids, both still unchecked. */
export interface NewPost {
  scope: PostScope;
  userId: number;
  text: string;
  status: PostStatus;
  scheduledAt: string | null;
  publishAttempt: number;
  refs: ChannelRefParts[];
  mediaIds: number[];
  /** For a post to be published or scheduled. */
  requireConnected: boolean;
}

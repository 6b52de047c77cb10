import { toChannelRef } from '../channels/channel-ref';
import { formatTimestamp } from '../../infrastructure/database/timestamps';
import type {
  PostCreatedDto,
  PostListItemDto,
  PostMediaDto,
  PostObjectDto,
  PostTargetStateDto,
} from './dto/post-response.dto';
import type { PostMediaRow, PostRow, PostWithDetails, TargetRow } from './post-rows';

export type MediaUrl = (storagePath: string) => string;

export function toPostCreated(post: PostRow): PostCreatedDto {
  return {
    id: post.id,
    status: post.status,
    project_id: post.project_id,
    text: post.text,
    scheduled_at: formatTimestamp(post.scheduled_at),
    created_at: formatTimestamp(post.created_at),
    test: post.test,
  };
}

export function toTargetState(target: TargetRow): PostTargetStateDto {
  return {
    channel_ref: toChannelRef(target.platform, target.account_id, target.chat_id),
    channel_id: target.chat_id,
    status: target.status,
    error:
      target.error_code === null
        ? null
        : { code: target.error_code, message: target.error_message ?? '' },
    message_ids: target.message_ids,
    url: target.status === 'published' ? (target.messages[0]?.url ?? null) : null,
    messages: target.messages.map(({ id, url }) => ({ id, url })),
    published_at: formatTimestamp(target.published_at),
  };
}

export function toPostListItem(post: PostWithDetails): PostListItemDto {
  return {
    id: post.id,
    status: post.status,
    text: post.text,
    platform: post.targets[0]?.platform ?? null,
    channel_ids: post.targets.map((t) => t.chat_id),
    scheduled_at: formatTimestamp(post.scheduled_at),
    published_at: formatTimestamp(post.published_at),
    created_at: formatTimestamp(post.created_at),
    project_id: post.project_id,
    media_ids: post.media_ids,
    thread: post.thread,
    split_long_text: post.split_long_text,
    targets: post.targets.map(toTargetState),
    test: post.test,
  };
}

export function toPostMedia(media: PostMediaRow, mediaUrl: MediaUrl): PostMediaDto {
  return {
    id: media.id,
    type: media.type,
    mime_type: media.mime_type,
    alt_text: media.alt_text,
    url: mediaUrl(media.storage_path),
  };
}

/** GET/PATCH answer it; webhook events carry it. */
export function toPostObject(post: PostWithDetails, mediaUrl: MediaUrl): PostObjectDto {
  return {
    ...toPostListItem(post),
    updated_at: formatTimestamp(post.updated_at),
    media: post.media.map((m) => toPostMedia(m, mediaUrl)),
  };
}

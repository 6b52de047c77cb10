// Generated from the public OpenAPI document by scripts/generate-types.js; do not edit.
// `npm run build` at the root of the repository writes it again.

export interface ErrorDetailDto {
  field: string;
  message: string;
  /** The problem’s own code, where the answer lists every problem of a post */
  code?: string;
  /** The target the problem is about; null when it is about the whole post */
  channel_ref?: string | null;
}

export interface ErrorObjectDto {
  code: string;
  message: string;
  details?: Array<ErrorDetailDto>;
}

export interface ErrorResponseDto {
  error: ErrorObjectDto;
}

export interface PublicProjectDto {
  id: number;
  name: string;
  timezone: string;
  /** UTC, microseconds, no offset */
  created_at: Date;
  is_owner: boolean;
}

export interface PublicProjectListDto {
  items: Array<PublicProjectDto>;
  count: number;
}

export interface MediaMaxBytesDto {
  image?: number;
  video?: number;
}

export interface ChannelLimitsDto {
  /** The longest text, counted in `text_unit` */
  text_max: number;
  /** How text is counted: `utf16`, UTF-16 code units; `graphemes`, characters as people see them (graphemes); `threads`, characters as people see them, each emoji counting its UTF-8 bytes; `x`, weighted characters, as X weighs them (twitter-text: every link 23, most CJK characters and emoji 2) */
  text_unit: 'utf16' | 'graphemes' | 'threads' | 'x';
  /** The most media files in one post */
  media_max: number;
  /** The media kinds the platform takes */
  media_kinds: Array<'image' | 'video'>;
  media_max_bytes: MediaMaxBytesDto;
  /** A second limit of the text where the platform has one, in UTF-8 bytes */
  text_max_bytes?: number;
  /** Where the platform counts every http(s) link as this many characters whatever its length */
  url_length?: number;
  /** The most different links (http(s) or www.) one text may hold */
  links_max?: number;
  /** The most hashtags one text may hold */
  hashtags_max?: number;
  /** Where the platform takes no post without media: the fewest media a post holds */
  media_min?: number;
}

export interface ChannelListItemDto {
  /** `{platform}:{account_id}:{channel_id}`, the channel id being everything after the second colon (a channel id may hold colons itself); use it as channel_ref */
  id: string;
  platform: 'telegram' | 'discord' | 'mastodon' | 'bluesky' | 'facebook' | 'instagram' | 'threads' | 'linkedin' | 'x';
  account_id: number;
  /** The channel’s id on its platform, as text: a Telegram chat id (may be negative), a Discord channel id, a Mastodon account id, a Bluesky DID, a Facebook page id, an Instagram professional account id, a Threads user id, a LinkedIn member or organization URN, an X user id */
  channel_id: string;
  title: string;
  username: string | null;
  needs_reconnect: boolean;
  /** The channel’s public link (a public chat, a server channel, a profile); null where it has none (a chat without a public username) */
  url: string | null;
  limits: ChannelLimitsDto;
  /** When a send was last answered by the platform that this channel does not exist (deleted, or the account no longer in it): its targets fail `<platform>_rejected` with the platform's words. Null while the channel is fine; the next delivery to it clears it. */
  missing_since: string | null;
  /** When the account must be connected again at the latest, because nothing can renew its access after that (a token without a refresh token, or a refresh token that expires itself). Null when its access renews itself or never expires. */
  reconnect_by: string | null;
}

export interface StartConnectionDto {
  platform: 'mastodon' | 'facebook' | 'instagram' | 'threads' | 'linkedin' | 'x';
  /** Absolute http(s) URL the browser is sent to when the connection is over, with `status=connected&account_id=<id>` or `status=error&error=<code>` added to its query. Without it, Herald shows a small page saying what happened. */
  redirect_url?: string;
  /** Mastodon: the address of the account's instance (http or https; kept as its origin). A user's address: it must be public unless OUTBOUND_ALLOW_CIDRS lists it (else invalid_url or url_not_allowed) */
  instance_url?: string;
}

export interface ConnectionStartedDto {
  /** Send the user here (their browser): they sign in on the platform and allow Herald. Single use. */
  authorize_url: string;
  /** UTC; after it the link no longer connects anything (10 minutes) */
  expires_at: Date;
}

export interface MediaAssetDto {
  /** Use it in `media_ids` of a post */
  id: number;
  /** From the file’s bytes */
  type: 'image' | 'video';
  filename: string;
  /** What the image shows, for readers who cannot see it; null when none was given. Sent as its description by every platform that takes one */
  alt_text: string | null;
  /** From the file’s bytes */
  mime_type: string;
  size_bytes: number;
  url: string;
  storage_path: string;
  /** UTC, microseconds */
  created_at: Date;
}

export interface ChannelListDto {
  items: Array<ChannelListItemDto>;
  count: number;
}

export interface PostTargetDto {
  /** A channel id from GET /projects/{id}/channels: `{platform}:{account_id}:{channel_id}` */
  channel_ref: string;
}

export interface ThreadItemDto {
  /** The item's text, at most 4096 characters; may be empty only with media_ids */
  text: string;
  /** Unique ids of media assets of this project, on this item, in album order */
  media_ids?: Array<number>;
}

export interface CreatePostDto {
  /** Post text, at most 4096 characters (100000 with split_long_text); required unless media_ids is non-empty */
  text?: string;
  /** Unique channels of this project, one platform; required with scheduled_at or publish_now */
  targets?: Array<PostTargetDto>;
  /** Unique ids of media assets of this project, in album order */
  media_ids?: Array<number>;
  /** Further messages published after the post, each a reply to the one before (on a platform that takes one first comment, a single item). Each is checked against the platform's limits like the post */
  thread?: Array<ThreadItemDto>;
  /** A text over a target platform's limit becomes a thread instead of being refused: cut at the last paragraph break, else sentence end, else space that fits, the media on the first message; at most 25 messages per target */
  split_long_text?: boolean;
  /** ISO 8601 date-time with Z, an offset or none (UTC); in the future, at most a year ahead. Creates the post as `scheduled` */
  scheduled_at?: string | Date;
  /** Queue the post for publication at once (status `queued`); not with scheduled_at */
  publish_now?: boolean;
}

export interface PostCreatedDto {
  id: number;
  status: 'draft' | 'scheduled' | 'queued' | 'publishing' | 'published' | 'failed';
  project_id: number;
  text: string;
  scheduled_at: Date | null;
  created_at: Date;
  /** Made with a test key: simulated delivery, never sent */
  test: boolean;
}

export interface PostProblemDto {
  code: string;
  message: string;
  field: string | null;
  channel_ref: string | null;
}

export interface TargetPlanDto {
  channel_ref: string;
  platform: string;
  /** How many messages the post becomes on this channel, its thread and any cut included (one message, status or record each; where a caption is shorter than the text, the media, then the text as its own message) */
  messages: number;
  /** Each message's text in order, after any split (a message of media alone has an empty text) */
  messages_preview: Array<string>;
}

export interface PostValidationDto {
  /** True when create would accept this body */
  valid: boolean;
  errors: Array<PostProblemDto>;
  /** The targets that are channels of this project */
  targets: Array<TargetPlanDto>;
}

export interface ThreadItemStateDto {
  text: string;
  /** In album order; `[]` when none */
  media_ids: Array<number>;
}

export interface TargetErrorDto {
  /** `<platform>_rejected` (the platform refused the message or said the channel does not exist; its words in `message`), `account_needs_reconnect`, `channel_needs_reconnect`, `channel_removed` (the channel's account was removed from the project), `delivery_failed` (not delivered after every try), `delivery_unconfirmed` (a send whose outcome is unknown: publish again to retry) `media_unavailable` (a stored file is gone), `platform_unsupported`, or in test mode the simulated `platform_rejected` */
  code: string;
  message: string;
}

export interface TargetMessageDto {
  /** The message id as the platform gives it, always text (a number, a snowflake, an at:// URI) */
  id: string;
  /** Its public link; null where the platform gives none (test posts: under https://example.invalid/) */
  url: string | null;
}

export interface PostTargetStateDto {
  channel_ref: string;
  channel_id: string;
  status: 'pending' | 'published' | 'failed';
  error: TargetErrorDto | null;
  /** The message ids as integers, in order, on the platform whose ids are integers and have always been listed here; `[]` on the others, whose messages are in `messages` */
  message_ids: Array<number>;
  /** The public link of its first message; null until the target is published, or where the platform gives none */
  url: string | null;
  /** Every message this target became, in order */
  messages: Array<TargetMessageDto>;
  published_at: Date | null;
}

export interface PostListItemDto {
  id: number;
  status: 'draft' | 'scheduled' | 'queued' | 'publishing' | 'published' | 'failed';
  text: string;
  /** Null without targets */
  platform: string | null;
  /** The targets’ channel ids on the platform */
  channel_ids: Array<string>;
  scheduled_at: Date | null;
  published_at: Date | null;
  created_at: Date;
  project_id?: number;
  /** media_files, in album order */
  media_ids?: Array<number>;
  /** Further messages as given, each a reply to the one before; `[]` when none */
  thread: Array<ThreadItemStateDto>;
  /** A text over a platform's limit is cut into a thread */
  split_long_text: boolean;
  targets?: Array<PostTargetStateDto>;
  /** Made with a test key: simulated delivery, never sent */
  test: boolean;
}

export interface PostListDto {
  items: Array<PostListItemDto>;
  /** The number of items on this page */
  count: number;
  /** Pass it as `cursor` for the next page; null on the last page */
  next_cursor: string | null;
}

export interface PostMediaDto {
  id: number;
  type: 'image' | 'video';
  mime_type: string;
  /** What the image shows, for readers who cannot see it; null when none was given */
  alt_text: string | null;
  url: string;
}

export interface PostObjectDto {
  id: number;
  status: 'draft' | 'scheduled' | 'queued' | 'publishing' | 'published' | 'failed';
  text: string;
  /** Null without targets */
  platform: string | null;
  /** The targets’ channel ids on the platform */
  channel_ids: Array<string>;
  scheduled_at: Date | null;
  published_at: Date | null;
  created_at: Date;
  project_id?: number;
  /** media_files, in album order */
  media_ids?: Array<number>;
  /** Further messages as given, each a reply to the one before; `[]` when none */
  thread: Array<ThreadItemStateDto>;
  /** A text over a platform's limit is cut into a thread */
  split_long_text: boolean;
  targets?: Array<PostTargetStateDto>;
  /** Made with a test key: simulated delivery, never sent */
  test: boolean;
  updated_at: Date;
  /** In album order */
  media: Array<PostMediaDto>;
}

export interface UpdatePostDto {
  /** Post text, at most 4096 characters (100000 when the post has split_long_text); may be empty only when the post has media */
  text?: string;
  /** Replaces the targets: unique channels of this project, one platform */
  targets?: Array<PostTargetDto>;
  /** Replaces the media: unique ids of media assets of this project, in album order */
  media_ids?: Array<number>;
  /** Replaces the thread: further messages, each a reply to the one before */
  thread?: Array<ThreadItemDto>;
  /** Whether a text over a target platform's limit becomes a thread */
  split_long_text?: boolean;
  /** A date-time in the future, at most a year ahead: the post becomes scheduled for that time (needs posts:publish). `null` turns a scheduled post back into a draft. */
  scheduled_at?: string | Date | null;
}

export interface PublishPostDto {
  /** Replace the post's targets; targets already published are never sent again. Left out (or no body at all): the post's own targets */
  targets?: Array<PostTargetDto>;
}

export interface PublishResultDto {
  id: number;
  status: string;
  /** A test post (created with a test key): simulated, never sent */
  test: boolean;
}

export interface UploadByUrlDto {
  /** Absolute http or https URL of a public resource; credentials, localhost and private addresses are refused */
  url: string;
  /** Name to keep; sanitized and cut to 255 bytes. Default: the last path segment of the final URL, else `file.<ext>` */
  filename?: string;
  /** What the image shows, for readers who cannot see it (at most 1500 characters); sent as the image's description by every platform that takes one (docs/integrating.md#media-rules) */
  alt_text?: string | null;
}

export interface UploadFileFormDto {
  /** Exactly one file: JPEG, PNG, GIF, WebP, MP4 or QuickTime, at most 52,428,800 bytes. The type is read from the bytes. */
  files: Blob;
  /** What the image shows, for readers who cannot see it (at most 1500 characters); sent as the image's description by every platform that takes one (docs/integrating.md#media-rules) */
  alt_text?: string | null;
}

export interface MediaAssetListDto {
  items: Array<MediaAssetDto>;
  count: number;
}

export interface UpdateMediaDto {
  /** What the image shows, for readers who cannot see it (at most 1500 characters); `null` removes it. Posts not yet delivered send the new text (docs/integrating.md#media-rules) */
  alt_text: string | null;
}

export interface UsageDto {
  /** Posts the key user created since the 1st of this month, UTC */
  posts_this_month: number;
  /** Projects GET /projects lists */
  projects_count: number;
  /** The user’s keys neither revoked nor expired */
  api_keys_count: number;
}

export interface CreateWebhookDto {
  /** An absolute http(s) URL without credentials; its host must not be local or private. */
  url: string;
  events: Array<'post.published' | 'post.failed' | 'channel.needs_reconnect' | 'account.connected'>;
}

export interface WebhookCreatedDto {
  id: number;
  url: string;
  events: Array<'post.published' | 'post.failed' | 'channel.needs_reconnect' | 'account.connected'>;
  /** False once deliveries kept failing; see disabled_reason */
  enabled: boolean;
  disabled_reason: string | null;
  /** Made with a test key: receives the events of test posts only. Live webhooks (a live key or the application API) receive live events only. */
  test: boolean;
  created_at: Date;
  /** The signing secret; shown only in this answer. */
  secret: string;
}

export interface WebhookDto {
  id: number;
  url: string;
  events: Array<'post.published' | 'post.failed' | 'channel.needs_reconnect' | 'account.connected'>;
  /** False once deliveries kept failing; see disabled_reason */
  enabled: boolean;
  disabled_reason: string | null;
  /** Made with a test key: receives the events of test posts only. Live webhooks (a live key or the application API) receive live events only. */
  test: boolean;
  created_at: Date;
}

export interface WebhookListDto {
  items: Array<WebhookDto>;
  count: number;
}

export interface WebhookDeliveryDto {
  id: number;
  /** The webhook-id header; the same on every attempt of the event */
  event_id: string;
  event_type: 'post.published' | 'post.failed' | 'channel.needs_reconnect' | 'account.connected' | 'webhook.test';
  /** 1 for the first attempt */
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: Date;
}

export interface WebhookDeliveryListDto {
  items: Array<WebhookDeliveryDto>;
  count: number;
  /** Pass as `cursor` for the next (older) page; null on the last page */
  next_cursor: string | null;
}

export interface WebhookTestDto {
  /** The id of the webhook.test event sent */
  event_id: string;
}

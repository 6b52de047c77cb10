import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { EXAMPLE_CHANNEL_ID, EXAMPLE_PLATFORM } from '../../platforms/platforms';
import { POST_STATUSES, TARGET_STATUSES } from '../post-state';

export class PostCreatedDto {
  @ApiProperty() id!: number;
  @ApiProperty({ enum: POST_STATUSES }) status!: string;
  @ApiProperty() project_id!: number;
  @ApiProperty() text!: string;
  @ApiProperty({ type: String, nullable: true, example: '2026-12-01T09:00:00.000000' })
  scheduled_at!: string | null;
  @ApiProperty({ example: '2026-11-22T07:47:01.123456' }) created_at!: string;
  @ApiProperty({ description: 'Made with a test key: simulated delivery, never sent' })
  test!: boolean;
}

export class TargetErrorDto {
  @ApiProperty({
    example: 'delivery_unconfirmed',
    description:
      "`<platform>_rejected` (the platform refused the message or said the channel does not exist; its words in `message`), `account_needs_reconnect`, `channel_needs_reconnect`, `channel_removed` (the channel's account was removed from the project), `delivery_failed` (not delivered after every try), `delivery_unconfirmed` (a send whose outcome is unknown: publish again to retry) `media_unavailable` (a stored file is gone), `platform_unsupported`, or in test mode the simulated `platform_rejected`",
  })
  code!: string;
  @ApiProperty() message!: string;
}

export class TargetMessageDto {
  @ApiProperty({
    description:
      'The message id as the platform gives it, always text (a number, a snowflake, an at:// URI)',
    example: '42',
  })
  id!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Its public link; null where the platform gives none (test posts: under https://example.invalid/)',
    example: EXAMPLE_PLATFORM.examples.messageUrl,
  })
  url!: string | null;
}

export class PostTargetStateDto {
  @ApiProperty({ example: EXAMPLE_PLATFORM.examples.channelRef }) channel_ref!: string;
  @ApiProperty({ example: EXAMPLE_CHANNEL_ID }) channel_id!: string;
  @ApiProperty({ enum: TARGET_STATUSES }) status!: string;
  @ApiProperty({ type: TargetErrorDto, nullable: true }) error!: TargetErrorDto | null;
  @ApiProperty({
    type: [Number],
    description:
      'The message ids as integers, in order, on the platform whose ids are integers and have always been listed here; `[]` on the others, whose messages are in `messages`',
  })
  message_ids!: number[];
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The public link of its first message; null until the target is published, or where the platform gives none',
    example: EXAMPLE_PLATFORM.examples.messageUrl,
  })
  url!: string | null;
  @ApiProperty({
    type: [TargetMessageDto],
    description: 'Every message this target became, in order',
  })
  messages!: TargetMessageDto[];
  @ApiProperty({ type: String, nullable: true }) published_at!: string | null;
}

export class ThreadItemStateDto {
  @ApiProperty() text!: string;
  @ApiProperty({ type: [Number], description: 'In album order; `[]` when none' })
  media_ids!: number[];
}

export class PostListItemDto {
  @ApiProperty() id!: number;
  @ApiProperty({ enum: POST_STATUSES }) status!: string;
  @ApiProperty() text!: string;
  @ApiProperty({ type: String, nullable: true, description: 'Null without targets' })
  platform!: string | null;
  @ApiProperty({ type: [String], description: 'The targets’ channel ids on the platform' })
  channel_ids!: string[];
  @ApiProperty({ type: String, nullable: true }) scheduled_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) published_at!: string | null;
  @ApiProperty() created_at!: string;
  @ApiPropertyOptional() project_id!: number;
  @ApiPropertyOptional({ type: [Number], description: 'media_files, in album order' })
  media_ids!: number[];
  @ApiProperty({
    type: [ThreadItemStateDto],
    description: 'Further messages as given, each a reply to the one before; `[]` when none',
  })
  thread!: ThreadItemStateDto[];
  @ApiProperty({ description: "A text over a platform's limit is cut into a thread" })
  split_long_text!: boolean;
  @ApiPropertyOptional({ type: [PostTargetStateDto] }) targets!: PostTargetStateDto[];
  @ApiProperty({ description: 'Made with a test key: simulated delivery, never sent' })
  test!: boolean;
}

export class PostMediaDto {
  @ApiProperty() id!: number;
  @ApiProperty({ enum: ['image', 'video'] }) type!: string;
  @ApiProperty({ example: 'image/jpeg' }) mime_type!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'A lighthouse at dusk, its beam over a calm sea',
    description: 'What the image shows, for readers who cannot see it; null when none was given',
  })
  alt_text!: string | null;
  @ApiProperty({ example: 'https://herald.example.com/media/projects/1/2026/11/abc.jpg' })
  url!: string;
}

export class PostObjectDto extends PostListItemDto {
  @ApiProperty({ example: '2026-11-22T07:47:01.123456' }) updated_at!: string;
  @ApiProperty({ type: [PostMediaDto], description: 'In album order' }) media!: PostMediaDto[];
}

export class PostListDto {
  @ApiProperty({ type: [PostListItemDto] }) items!: PostListItemDto[];
  @ApiProperty({ description: 'The number of items on this page' }) count!: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass it as `cursor` for the next page; null on the last page',
  })
  next_cursor!: string | null;
}

export class PublishResultDto {
  @ApiProperty() id!: number;
  @ApiProperty({ example: 'publishing' }) status!: string;
  @ApiProperty({ description: 'A test post (created with a test key): simulated, never sent' })
  test!: boolean;
}

/** The same codes create, PATCH and publish answer. */
export class PostProblemDto {
  @ApiProperty({ example: 'channel_not_found' }) code!: string;
  @ApiProperty() message!: string;
  @ApiProperty({ type: String, nullable: true, example: 'targets' }) field!: string | null;
  @ApiProperty({ type: String, nullable: true, example: EXAMPLE_PLATFORM.examples.channelRef })
  channel_ref!: string | null;
}

export class TargetPlanDto {
  @ApiProperty({ example: EXAMPLE_PLATFORM.examples.channelRef }) channel_ref!: string;
  @ApiProperty({ example: EXAMPLE_PLATFORM.name }) platform!: string;
  @ApiProperty({
    description:
      'How many messages the post becomes on this channel, its thread and any cut included (one message, status or record each; where a caption is shorter than the text, the media, then the text as its own message)',
  })
  messages!: number;
  @ApiProperty({
    type: [String],
    description:
      "Each message's text in order, after any split (a message of media alone has an empty text)",
  })
  messages_preview!: string[];
}

export class PostValidationDto {
  @ApiProperty({ description: 'True when create would accept this body' }) valid!: boolean;
  @ApiProperty({ type: [PostProblemDto] }) errors!: PostProblemDto[];
  @ApiProperty({
    type: [TargetPlanDto],
    description: 'The targets that are channels of this project',
  })
  targets!: TargetPlanDto[];
}

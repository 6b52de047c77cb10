import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { EXAMPLE_PLATFORM } from '../../platforms/platforms';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsInt,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
  ValidationArguments,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  Validate,
  ValidateIf,
} from 'class-validator';
import { parseInputTimestamp } from '../../../infrastructure/database/timestamps';
import { MAX_DB_ID } from '../../../http/errors/parse-id.pipe';
import {
  MAX_MEDIA_PER_POST,
  MAX_SPLIT_TEXT_LENGTH,
  MAX_TARGETS_PER_POST,
  MAX_TEXT_LENGTH,
  scheduleHorizon,
} from '../post-state';
import { MAX_THREAD_ITEMS } from '../../platforms/thread-items';
import { Omittable } from '../../../http/input/omittable';

export const MAX_CHANNEL_REF_LENGTH = 200;

export class PostTargetDto {
  @ApiProperty({
    description:
      'A channel id from GET /projects/{id}/channels: `{platform}:{account_id}:{channel_id}`',
    example: EXAMPLE_PLATFORM.examples.channelRef,
  })
  @IsString()
  @MaxLength(MAX_CHANNEL_REF_LENGTH)
  channel_ref!: string;
}

/** Targets as the post rules want them: unique refs, at most 50. */
export function TargetsList(): PropertyDecorator {
  return applyDecorators(
    IsArray(),
    ArrayMaxSize(MAX_TARGETS_PER_POST),
    ArrayUnique((t: PostTargetDto | undefined) => t?.channel_ref, {
      message: 'targets must not repeat a channel_ref',
    }),
    ValidateNested({ each: true }),
    Type(() => PostTargetDto),
  );
}

/** Media as the post rules want them: optional, unique asset ids, at most 10. */
export function MediaIdsList(): PropertyDecorator {
  return applyDecorators(
    Omittable(),
    IsArray(),
    ArrayMaxSize(MAX_MEDIA_PER_POST),
    ArrayUnique(),
    IsInt({ each: true }),
    Min(1, { each: true }),
    Max(MAX_DB_ID, { each: true }),
  );
}

function hasMedia(body: { media_ids?: unknown }): boolean {
  return Array.isArray(body.media_ids) && body.media_ids.length > 0;
}

function schedulesOrPublishes(body: { scheduled_at?: unknown; publish_now?: unknown }): boolean {
  return (
    (body.scheduled_at !== undefined && body.scheduled_at !== null) || body.publish_now === true
  );
}

/** Text, at most 4096 characters, is required (and not blank) unless media_ids is non-empty. */
@ValidatorConstraint({ name: 'postText' })
class PostTextRule implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    return textProblem(value, args.object as CreatePostDto) === null;
  }
  defaultMessage(args: ValidationArguments): string {
    return textProblem(args.value, args.object as CreatePostDto) ?? 'text is not valid';
  }
}

function textProblem(
  value: unknown,
  body: { media_ids?: unknown; split_long_text?: unknown },
): string | null {
  if (value === undefined || value === null)
    return hasMedia(body) ? null : 'text is required unless media_ids is non-empty';
  if (typeof value !== 'string') return 'text must be a string';
  const max = body.split_long_text === true ? MAX_SPLIT_TEXT_LENGTH : MAX_TEXT_LENGTH;
  if (value.length > max) return `text must be at most ${max} characters`;
  if (value.trim().length === 0 && !hasMedia(body))
    return 'text must not be blank unless media_ids is non-empty';
  return null;
}

/** Targets are required and non-empty when the post is scheduled or published now. */
@ValidatorConstraint({ name: 'targetsRequired' })
class TargetsRequiredRule implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    return (
      !schedulesOrPublishes(args.object as CreatePostDto) ||
      (Array.isArray(value) && value.length > 0)
    );
  }
  defaultMessage(): string {
    return 'targets must be a non-empty array when scheduled_at or publish_now is given';
  }
}

/** An ISO 8601 instant (Z, offset or none = UTC) in the future, at most a year ahead. */
@ValidatorConstraint({ name: 'scheduledAt' })
export class ScheduledAtRule implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return scheduleProblem(value) === null;
  }
  defaultMessage(args: ValidationArguments): string {
    return scheduleProblem(args.value) ?? 'scheduled_at is not valid';
  }
}

function scheduleProblem(value: unknown): string | null {
  const parsed = typeof value === 'string' ? parseInputTimestamp(value) : null;
  const now = Date.now();
  if (!parsed)
    return 'scheduled_at must be an ISO 8601 date-time (with Z, an offset, or none for UTC)';
  if (parsed.epochMs <= now) return 'scheduled_at must lie in the future';
  if (parsed.epochMs > scheduleHorizon(now)) return 'scheduled_at must be at most one year ahead';
  return null;
}

/** A post is either scheduled or published now, never both. */
@ValidatorConstraint({ name: 'publishNow' })
class PublishNowRule implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    const body = args.object as CreatePostDto;
    return !(value === true && body.scheduled_at !== undefined && body.scheduled_at !== null);
  }
  defaultMessage(): string {
    return 'publish_now cannot be combined with scheduled_at';
  }
}

/** A message after the post: text, media, or both. */
export class ThreadItemDto {
  @ApiProperty({
    maxLength: MAX_TEXT_LENGTH,
    description: `The item's text, at most ${MAX_TEXT_LENGTH} characters; may be empty only with media_ids`,
  })
  @Validate(PostTextRule)
  text!: string;

  @ApiPropertyOptional({
    type: [Number],
    maxItems: MAX_MEDIA_PER_POST,
    description: 'Unique ids of media assets of this project, on this item, in album order',
  })
  @MediaIdsList()
  media_ids?: number[];
}

/** Further messages, each a reply to the one before: at most 24. */
export function ThreadList(): PropertyDecorator {
  return applyDecorators(
    Omittable(),
    IsArray(),
    ArrayMaxSize(MAX_THREAD_ITEMS),
    ValidateNested({ each: true }),
    Type(() => ThreadItemDto),
  );
}

export class CreatePostDto {
  @ApiPropertyOptional({
    description: `Post text, at most ${MAX_TEXT_LENGTH} characters (${MAX_SPLIT_TEXT_LENGTH} with split_long_text); required unless media_ids is non-empty`,
    maxLength: MAX_SPLIT_TEXT_LENGTH,
  })
  @Validate(PostTextRule)
  text?: string;

  @ApiPropertyOptional({
    type: [PostTargetDto],
    maxItems: MAX_TARGETS_PER_POST,
    description:
      'Unique channels of this project, one platform; required with scheduled_at or publish_now',
  })
  @ValidateIf((o: CreatePostDto) => o.targets !== undefined || schedulesOrPublishes(o))
  @TargetsList()
  @Validate(TargetsRequiredRule)
  targets?: PostTargetDto[];

  @ApiPropertyOptional({
    type: [Number],
    maxItems: MAX_MEDIA_PER_POST,
    description: 'Unique ids of media assets of this project, in album order',
  })
  @MediaIdsList()
  media_ids?: number[];

  @ApiPropertyOptional({
    type: [ThreadItemDto],
    maxItems: MAX_THREAD_ITEMS,
    description:
      "Further messages published after the post, each a reply to the one before (on a platform that takes one first comment, a single item). Each is checked against the platform's limits like the post",
  })
  @ThreadList()
  thread?: ThreadItemDto[];

  @ApiPropertyOptional({
    description:
      "A text over a target platform's limit becomes a thread instead of being refused: cut at the last paragraph break, else sentence end, else space that fits, the media on the first message; at most 25 messages per target",
  })
  @Omittable()
  @IsBoolean()
  split_long_text?: boolean;

  @ApiPropertyOptional({
    description:
      'ISO 8601 date-time with Z, an offset or none (UTC); in the future, at most a year ahead. Creates the post as `scheduled`',
    example: '2026-12-01T09:00:00Z',
  })
  @Omittable()
  @Validate(ScheduledAtRule)
  scheduled_at?: string;

  @ApiPropertyOptional({
    description: 'Queue the post for publication at once (status `queued`); not with scheduled_at',
  })
  @Omittable()
  @IsBoolean()
  @Validate(PublishNowRule)
  publish_now?: boolean;
}

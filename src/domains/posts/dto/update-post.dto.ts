import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, MaxLength, Validate, ValidateIf } from 'class-validator';
import {
  MAX_MEDIA_PER_POST,
  MAX_SPLIT_TEXT_LENGTH,
  MAX_TARGETS_PER_POST,
  MAX_TEXT_LENGTH,
} from '../post-state';
import { MAX_THREAD_ITEMS } from '../../platforms/thread-items';
import {
  MediaIdsList,
  PostTargetDto,
  ScheduledAtRule,
  TargetsList,
  ThreadItemDto,
  ThreadList,
} from './create-post.dto';
import { Omittable } from '../../../http/input/omittable';

/** Given fields replace the stored ones; the creation rules apply to the result. */
export class UpdatePostDto {
  @ApiPropertyOptional({
    maxLength: MAX_SPLIT_TEXT_LENGTH,
    description: `Post text, at most ${MAX_TEXT_LENGTH} characters (${MAX_SPLIT_TEXT_LENGTH} when the post has split_long_text); may be empty only when the post has media`,
  })
  @Omittable()
  @IsString()
  @MaxLength(MAX_SPLIT_TEXT_LENGTH)
  text?: string;

  @ApiPropertyOptional({
    type: [PostTargetDto],
    maxItems: MAX_TARGETS_PER_POST,
    description: 'Replaces the targets: unique channels of this project, one platform',
  })
  @Omittable()
  @TargetsList()
  targets?: PostTargetDto[];

  @ApiPropertyOptional({
    type: [Number],
    maxItems: MAX_MEDIA_PER_POST,
    description: 'Replaces the media: unique ids of media assets of this project, in album order',
  })
  @MediaIdsList()
  media_ids?: number[];

  @ApiPropertyOptional({
    type: [ThreadItemDto],
    maxItems: MAX_THREAD_ITEMS,
    description: 'Replaces the thread: further messages, each a reply to the one before',
  })
  @ThreadList()
  thread?: ThreadItemDto[];

  @ApiPropertyOptional({
    description: "Whether a text over a target platform's limit becomes a thread",
  })
  @Omittable()
  @IsBoolean()
  split_long_text?: boolean;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    example: '2026-12-01T09:00:00Z',
    description:
      'A date-time in the future, at most a year ahead: the post becomes scheduled for that time (needs posts:publish). `null` turns a scheduled post back into a draft.',
  })
  @ValidateIf((o: UpdatePostDto) => o.scheduled_at !== undefined && o.scheduled_at !== null)
  @Validate(ScheduledAtRule)
  scheduled_at?: string | null;
}

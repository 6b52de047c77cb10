import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, POST_STATUSES, type PostStatus } from '../post-state';
import { Omittable } from '../../../http/input/omittable';

/** Longer than any cursor we hand out. */
const MAX_CURSOR_LENGTH = 512;

export class ListPostsQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_LIST_LIMIT, default: DEFAULT_LIST_LIMIT })
  @Omittable()
  // Only plain digits become a number; "1.5", "1e1", " 5" or a repeated parameter stay invalid.
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value,
  )
  @IsInt({ message: 'limit must be an integer from 1 to 100' })
  @Min(1, { message: 'limit must be an integer from 1 to 100' })
  @Max(MAX_LIST_LIMIT, { message: 'limit must be an integer from 1 to 100' })
  limit?: number;

  @ApiPropertyOptional({ enum: POST_STATUSES, description: 'Only posts in this state' })
  @Omittable()
  @IsIn(POST_STATUSES, { message: `status must be one of ${POST_STATUSES.join(', ')}` })
  status?: PostStatus;

  @ApiPropertyOptional({
    description: 'The next_cursor of the previous page, to continue the list; opaque',
    maxLength: MAX_CURSOR_LENGTH,
  })
  @Omittable()
  @IsString()
  @MaxLength(MAX_CURSOR_LENGTH)
  cursor?: string;
}

import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from '../post-state';

export class ListPostsQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_LIST_LIMIT, default: DEFAULT_LIST_LIMIT })
  @IsOptional()
  // Only plain digits become a number; "1.5", "1e1", " 5" or a repeated parameter stay invalid.
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value,
  )
  @IsInt({ message: 'limit must be an integer from 1 to 100' })
  @Min(1, { message: 'limit must be an integer from 1 to 100' })
  @Max(MAX_LIST_LIMIT, { message: 'limit must be an integer from 1 to 100' })
  limit?: number;
}

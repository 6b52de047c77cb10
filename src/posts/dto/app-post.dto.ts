import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsInt,
  IsOptional,
  IsPositive,
  IsString,
  Max,
  MaxLength,
  Validate,
  ValidateIf,
} from 'class-validator';
import { MAX_DB_ID, parseId } from '../../errors/parse-id.pipe';
import { MAX_MEDIA_PER_POST, MAX_TARGETS_PER_POST, MAX_TEXT_LENGTH } from '../post-state';
import {
  CreatePostDto,
  MediaIdsList,
  PostTargetDto,
  ScheduledAtRule,
  TargetsList,
} from './create-post.dto';
import { ListPostsQuery } from './list-posts.query';
import { PublishPostDto } from './publish-post.dto';

/**
 * The application API's post bodies (issue 6): the public API's, plus the `project_id` that
 * names the project (the application's routes carry it in the query or body, not the path).
 */

function ProjectIdProperty(): PropertyDecorator {
  return applyDecorators(ApiProperty({ example: 1 }), IsInt(), IsPositive(), Max(MAX_DB_ID));
}

export class AppListPostsQuery extends ListPostsQuery {
  // PermissionGuard has found the project by parseId(project_id) already; this makes it a number.
  @ProjectIdProperty()
  @Transform(({ value }: { value: unknown }) => parseId(value) ?? value)
  project_id!: number;
}

export class AppCreatePostDto extends CreatePostDto {
  @ProjectIdProperty()
  project_id!: number;
}

export class AppPublishPostDto extends PublishPostDto {
  @ProjectIdProperty()
  project_id!: number;

  @ApiProperty({ example: 42 })
  @IsInt()
  @IsPositive()
  @Max(MAX_DB_ID)
  post_id!: number;
}

/** PUT /api/posts/:id: fields given replace the stored ones; `scheduled_at: null` makes a draft. */
export class AppUpdatePostDto {
  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT_LENGTH)
  text?: string;

  @ApiPropertyOptional({ type: [PostTargetDto], maxItems: MAX_TARGETS_PER_POST })
  @IsOptional()
  @TargetsList()
  targets?: PostTargetDto[];

  @ApiPropertyOptional({ type: [Number], maxItems: MAX_MEDIA_PER_POST })
  @MediaIdsList()
  media_ids?: number[];

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description: 'ISO 8601 (D1); reschedules the post; null turns it back into a draft',
  })
  @ValidateIf((o: AppUpdatePostDto) => o.scheduled_at !== undefined && o.scheduled_at !== null)
  @Validate(ScheduledAtRule)
  scheduled_at?: string | null;
}

import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsPositive, Max } from 'class-validator';
import { MAX_DB_ID, parseId } from '../../../http/errors/parse-id.pipe';
import { CreatePostDto } from './create-post.dto';
import { ListPostsQuery } from './list-posts.query';
import { PublishPostDto } from './publish-post.dto';
import { UpdatePostDto } from './update-post.dto';

/** The application API carries `project_id` in the query or body, not the path. */

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

/** PUT /api/posts/:id: the public API's PATCH body. */
export class AppUpdatePostDto extends UpdatePostDto {}

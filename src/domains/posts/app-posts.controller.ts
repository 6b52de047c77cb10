import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import { AppApi, CurrentProject, ProjectSource } from '../../access/decorators';
import { Principal } from '../../access/principal';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { LIMIT_ERRORS } from './post-rules';
import { ApiBodyExample, CREATE_POST_EXAMPLE, UPDATE_POST_EXAMPLE } from './dto/post-body-examples';
import { ParseIdPipe } from '../../http/errors/parse-id.pipe';
import type { ProjectAccess } from '../../access/project-access';
import {
  AppCreatePostDto,
  AppListPostsQuery,
  AppPublishPostDto,
  AppUpdatePostDto,
} from './dto/app-post.dto';
import {
  PostCreatedDto,
  PostListDto,
  PostObjectDto,
  PublishResultDto,
} from './dto/post-response.dto';
import { POST_NOT_FOUND } from './posts.repository';
import { PostsService } from './posts.service';

/** The post named by the path: its project is the route's. */
const BY_POST: ProjectSource = {
  param: 'id',
  resource: 'post',
};
const POST_ID = new ParseIdPipe(POST_NOT_FOUND.code, POST_NOT_FOUND.message);

/** The same PostsService as the public API, each route guarded by its member flag. */
@Controller('api/posts')
@ApiErrors('unauthorized', 'forbidden', 'project_not_found', 'validation_failed')
export class AppPostsController {
  constructor(private readonly posts: PostsService) {}

  @Get()
  @AppApi({ permission: 'can_view_content' })
  @ApiOperation({ summary: 'The project’s posts, newest first' })
  @ApiOkResponse({ type: PostListDto })
  list(
    @CurrentProject() project: ProjectAccess,
    @Query() query: AppListPostsQuery,
  ): Promise<PostListDto> {
    return this.posts.list(project, query);
  }

  @Post()
  @AppApi({
    permission: 'can_edit_content',
    whenBodySets: { fields: ['scheduled_at', 'publish_now'], flag: 'can_publish' },
  })
  @ApiOperation({ summary: 'Create a post: draft, scheduled, or queued with publish_now' })
  @ApiCreatedResponse({ type: PostCreatedDto })
  @ApiErrors(
    'channel_not_found',
    'mixed_platforms',
    'channel_needs_reconnect',
    'media_not_found',
    ...LIMIT_ERRORS,
  )
  @ApiBodyExample(AppCreatePostDto, { project_id: 1, ...CREATE_POST_EXAMPLE })
  create(
    @Principal() who: Principal,
    @CurrentProject() project: ProjectAccess,
    @Body() dto: AppCreatePostDto,
  ): Promise<PostCreatedDto> {
    return this.posts.create(project, who, dto);
  }

  @Post('publish')
  @HttpCode(202)
  @AppApi({ permission: 'can_publish' })
  @ApiOperation({ summary: 'Publish a draft, scheduled or failed post now' })
  @ApiAcceptedResponse({ type: PublishResultDto })
  @ApiErrors(
    'post_not_found',
    'invalid_state',
    'too_many_media_files',
    'channel_not_found',
    ...LIMIT_ERRORS,
  )
  publish(
    @CurrentProject() project: ProjectAccess,
    @Body() dto: AppPublishPostDto,
  ): Promise<PublishResultDto> {
    return this.posts.publish(project, dto.post_id, { targets: dto.targets });
  }

  @Put(':id')
  @AppApi({
    permission: 'can_edit_content',
    project: BY_POST,
    whenBodySets: { fields: ['scheduled_at'], flag: 'can_publish' },
  })
  @ApiOperation({ summary: 'Change a draft or scheduled post' })
  @ApiOkResponse({ type: PostObjectDto })
  @ApiErrors(
    'post_not_found',
    'invalid_state',
    'channel_not_found',
    'media_not_found',
    ...LIMIT_ERRORS,
  )
  @ApiBodyExample(AppUpdatePostDto, UPDATE_POST_EXAMPLE)
  update(
    @CurrentProject() project: ProjectAccess,
    @Param('id', POST_ID) id: number,
    @Body() dto: AppUpdatePostDto,
  ): Promise<PostObjectDto> {
    return this.posts.update(project, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @AppApi({ permission: 'can_edit_content', project: BY_POST })
  @ApiOperation({ summary: 'Delete a draft, scheduled or failed post' })
  @ApiNoContentResponse()
  @ApiErrors('post_not_found', 'invalid_state')
  remove(
    @CurrentProject() project: ProjectAccess,
    @Param('id', POST_ID) id: number,
  ): Promise<void> {
    return this.posts.remove(project, id);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { CurrentProject, PUBLIC_API_PREFIX, PublicApi } from '../../access/decorators';
import { Principal } from '../../access/principal';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { LIMIT_ERRORS } from './post-rules';
import { Idempotent } from '../../http/idempotency/idempotent.decorator';
import { ParseIdPipe } from '../../http/errors/parse-id.pipe';
import type { ProjectAccess } from '../../access/project-access';
import { CreatePostDto } from './dto/create-post.dto';
import { ApiBodyExample, CREATE_POST_EXAMPLE, UPDATE_POST_EXAMPLE } from './dto/post-body-examples';
import { ListPostsQuery } from './dto/list-posts.query';
import {
  PostCreatedDto,
  PostListDto,
  PostObjectDto,
  PostValidationDto,
  PublishResultDto,
} from './dto/post-response.dto';
import { PublishPostDto } from './dto/publish-post.dto';
import { UpdatePostDto } from './dto/update-post.dto';
import { POST_NOT_FOUND } from './posts.repository';
import { PostDryRun } from './post-dry-run';
import { PostsService } from './posts.service';

const PostIdPipe = new ParseIdPipe(POST_NOT_FOUND.code, POST_NOT_FOUND.message);

/** A create body that schedules or publishes needs the publish rights too. */
const PUBLISHING_BODY = {
  fields: ['scheduled_at', 'publish_now'],
  scopes: ['posts:publish' as const],
  flag: 'can_publish' as const,
};

@Controller(`${PUBLIC_API_PREFIX}/projects/:projectId/posts`)
@ApiParam({ name: 'projectId', type: Number })
@ApiErrors(
  'unauthorized',
  'insufficient_scope',
  'forbidden',
  'project_not_found',
  'rate_limit_exceeded',
)
export class PublicPostsController {
  constructor(
    private readonly posts: PostsService,
    private readonly dryRun: PostDryRun,
  ) {}

  @Post()
  @Idempotent()
  @PublicApi({
    scope: 'posts:write',
    permission: 'can_edit_content',
    rateLimit: 'create_post',
    whenBodySets: PUBLISHING_BODY,
  })
  @ApiOperation({
    summary: 'Create a post: draft, scheduled (scheduled_at) or queued (publish_now)',
    description:
      'Needs posts:write and can_edit_content; with scheduled_at or publish_now also posts:publish and can_publish.',
  })
  @ApiCreatedResponse({ type: PostCreatedDto })
  @ApiErrors(
    'validation_failed',
    'invalid_json',
    'channel_not_found',
    'mixed_platforms',
    'channel_needs_reconnect',
    ...LIMIT_ERRORS,
    'media_not_found',
    'payload_too_large',
  )
  @ApiBodyExample(CreatePostDto, CREATE_POST_EXAMPLE)
  create(
    @Principal() who: Principal,
    @CurrentProject() project: ProjectAccess,
    @Body() dto: CreatePostDto,
  ): Promise<PostCreatedDto> {
    return this.posts.create(project, who, dto);
  }

  @Post('validate')
  @HttpCode(200)
  @PublicApi({
    scope: 'posts:write',
    permission: 'can_edit_content',
    rateLimit: 'other',
    whenBodySets: PUBLISHING_BODY,
  })
  @ApiOperation({
    summary: 'Dry run: check a create body against every rule at once; nothing is stored',
    description:
      'Takes the body of create and checks it as create does (the same scopes, flags and rules), ' +
      'answering every problem at once with the codes create would answer, and how many messages ' +
      'the post becomes on each target. Nothing is stored, queued or counted in usage; counted ' +
      'in the rate-limit category other.',
  })
  @ApiBodyExample(CreatePostDto, CREATE_POST_EXAMPLE)
  @ApiOkResponse({ type: PostValidationDto })
  @ApiErrors('validation_failed', 'invalid_json', 'payload_too_large')
  validate(
    @CurrentProject() project: ProjectAccess,
    @Body() body: unknown,
  ): Promise<PostValidationDto> {
    return this.dryRun.check(project, body);
  }

  @Get()
  @PublicApi({ scope: 'posts:read', permission: 'can_view_content' })
  @ApiOperation({
    summary: 'Posts of the project, newest first, a page at a time',
    description:
      'Filter with status; continue with cursor = the next_cursor of the previous page (null on the last page).',
  })
  @ApiOkResponse({ type: PostListDto })
  @ApiErrors('validation_failed')
  list(
    @CurrentProject() project: ProjectAccess,
    @Query() query: ListPostsQuery,
  ): Promise<PostListDto> {
    return this.posts.list(project, query);
  }

  @Get(':postId')
  @PublicApi({ scope: 'posts:read', permission: 'can_view_content' })
  @ApiOperation({
    summary: 'One post: its state, each target’s delivery and its media in album order',
  })
  @ApiParam({ name: 'postId', type: Number })
  @ApiOkResponse({ type: PostObjectDto })
  @ApiErrors('post_not_found')
  get(
    @CurrentProject() project: ProjectAccess,
    @Param('postId', PostIdPipe) postId: number,
  ): Promise<PostObjectDto> {
    return this.posts.get(project, postId);
  }

  @Patch(':postId')
  @PublicApi({
    scope: 'posts:write',
    permission: 'can_edit_content',
    whenBodySets: { fields: ['scheduled_at'], scopes: ['posts:publish'], flag: 'can_publish' },
  })
  @ApiOperation({
    summary: 'Change a draft or scheduled post: text, media, targets, or its time',
    description:
      'Only while the post is draft or scheduled. Fields given replace the stored ones, and the creation rules apply to the post as it would become. A non-null scheduled_at (which also needs posts:publish and the publish permission) schedules the post for that time, and an earlier time no longer fires; scheduled_at: null turns a scheduled post back into a draft.',
  })
  @ApiParam({ name: 'postId', type: Number })
  @ApiOkResponse({ type: PostObjectDto })
  @ApiErrors(
    'validation_failed',
    'invalid_json',
    'channel_not_found',
    'mixed_platforms',
    'channel_needs_reconnect',
    ...LIMIT_ERRORS,
    'media_not_found',
    'post_not_found',
    'invalid_state',
    'payload_too_large',
  )
  @ApiBodyExample(UpdatePostDto, UPDATE_POST_EXAMPLE)
  update(
    @CurrentProject() project: ProjectAccess,
    @Param('postId', PostIdPipe) postId: number,
    @Body() dto: UpdatePostDto,
  ): Promise<PostObjectDto> {
    return this.posts.update(project, postId, dto);
  }

  @Delete(':postId')
  @HttpCode(204)
  @PublicApi({ scope: 'posts:write', permission: 'can_edit_content' })
  @ApiOperation({
    summary: 'Delete a draft, scheduled or failed post',
    description:
      'A scheduled post is never published afterwards. Messages already sent to a channel stay there.',
  })
  @ApiParam({ name: 'postId', type: Number })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors('post_not_found', 'invalid_state')
  remove(
    @CurrentProject() project: ProjectAccess,
    @Param('postId', PostIdPipe) postId: number,
  ): Promise<void> {
    return this.posts.remove(project, postId);
  }

  @Post(':postId/publish')
  @Idempotent()
  @PublicApi({ scope: 'posts:publish', permission: 'can_publish', rateLimit: 'publish' })
  @HttpCode(202)
  @ApiOperation({
    summary: 'Publish a post now',
    description:
      'From draft, scheduled or failed. Without a body (or without targets) the post goes to its own targets; targets in the body replace them. A channel that already has the post never gets it twice.',
  })
  @ApiParam({ name: 'postId', type: Number })
  @ApiBody({ type: PublishPostDto, required: false })
  @ApiAcceptedResponse({ type: PublishResultDto })
  @ApiErrors(
    'validation_failed',
    'invalid_json',
    'too_many_media_files',
    'channel_not_found',
    'mixed_platforms',
    'channel_needs_reconnect',
    ...LIMIT_ERRORS,
    'post_not_found',
    'invalid_state',
  )
  publish(
    @CurrentProject() project: ProjectAccess,
    @Param('postId', PostIdPipe) postId: number,
    @Body() dto: PublishPostDto,
  ): Promise<PublishResultDto> {
    return this.posts.publish(project, postId, dto);
  }
}

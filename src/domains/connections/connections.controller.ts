import { Body, Controller, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import {
  AppApi,
  CurrentProject,
  PUBLIC_API_PREFIX,
  PublicApi,
  type ProjectSource,
} from '../../access/decorators';
import { Principal } from '../../access/principal';
import type { ProjectAccess } from '../../access/project-access';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { AppError, type ErrorCode } from '../../http/errors/error-codes';
import {
  ConnectionStartedDto,
  OAUTH_PLATFORMS,
  START_EXAMPLES,
  StartConnectionDto,
} from './connection.dto';
import { ConnectionsService } from './connections.service';

const OPERATION = {
  summary: 'Start connecting an account through OAuth: a link for the account’s owner to follow',
  description:
    `Platforms: ${OAUTH_PLATFORMS.map((p) => p.displayName).join(', ')}. Hand \`authorize_url\` to the person whose account it is; ` +
    'once they allow Herald on the platform, the account (or the project’s account of the same identity, no longer needing reconnection) joins this project, ' +
    'the browser goes to `redirect_url` with `status` and `account_id` or `error`, and the `account.connected` webhook event is sent. ' +
    'The link works once, for 10 minutes.',
};

const PLATFORM_ERRORS = OAUTH_PLATFORMS.flatMap(
  (platform) => Object.keys(platform.errors) as ErrorCode[],
);

const ERRORS: ErrorCode[] = [
  'validation_failed',
  'invalid_json',
  'invalid_url',
  'url_not_allowed',
  'platform_not_configured',
  'media_url_not_public',
  'unauthorized',
  'forbidden',
  'project_not_found',
  'rate_limit_exceeded',
  ...PLATFORM_ERRORS,
];

@Controller(`${PUBLIC_API_PREFIX}/projects/:projectId/connections`)
export class PublicConnectionsController {
  constructor(private readonly connections: ConnectionsService) {}

  @Post()
  @PublicApi({ scope: 'accounts:write', permission: 'can_manage_accounts' })
  @ApiOperation({
    ...OPERATION,
    description: `${OPERATION.description} Live keys only: a test key is refused (403 forbidden), as no test account is ever connected.`,
  })
  @ApiParam({ name: 'projectId', type: Number })
  @ApiBody({ type: StartConnectionDto, examples: START_EXAMPLES })
  @ApiCreatedResponse({ type: ConnectionStartedDto })
  @ApiErrors(...ERRORS, 'insufficient_scope')
  start(
    @Principal() who: Principal,
    @CurrentProject() project: ProjectAccess,
    @Body() body: StartConnectionDto,
  ): Promise<ConnectionStartedDto> {
    if (who.apiKey?.mode === 'test')
      throw new AppError('forbidden', 'Accounts are connected with a live key; this is a test key');
    return this.connections.start(project.project.id, who.user.id, body);
  }
}

const BY_PROJECT: ProjectSource = { param: 'id' };

@Controller('api/projects/:id/connections')
export class AppConnectionsController {
  constructor(private readonly connections: ConnectionsService) {}

  @Post()
  @AppApi({ permission: 'can_manage_accounts', project: BY_PROJECT })
  @ApiOperation(OPERATION)
  @ApiBody({ type: StartConnectionDto, examples: START_EXAMPLES })
  @ApiCreatedResponse({ type: ConnectionStartedDto })
  @ApiErrors(...ERRORS)
  start(
    @Principal() who: Principal,
    @CurrentProject() project: ProjectAccess,
    @Body() body: StartConnectionDto,
  ): Promise<ConnectionStartedDto> {
    return this.connections.start(project.project.id, who.user.id, body);
  }
}

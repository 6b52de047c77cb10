import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiKeyAuth, PUBLIC_API_PREFIX, RequireScope } from '../../access/decorators';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { CurrentProject, RequirePermission } from '../../access/require-permission';
import type { ProjectAccess } from '../../access/project-access';
import { ChannelsService } from './channels.service';
import { ChannelListDto } from './dto/channel.dto';

@Controller(`${PUBLIC_API_PREFIX}/projects/:projectId/channels`)
@ApiKeyAuth()
export class PublicChannelsController {
  constructor(private readonly channels: ChannelsService) {}

  @Get()
  @RequireScope('projects:read')
  @RequirePermission('can_view_content')
  @ApiOperation({ summary: 'Channels across all connected accounts of the project' })
  @ApiParam({ name: 'projectId', type: Number })
  @ApiOkResponse({ type: ChannelListDto })
  @ApiErrors(
    'unauthorized',
    'insufficient_scope',
    'project_not_found',
    'forbidden',
    'rate_limit_exceeded',
  )
  async list(@CurrentProject() project: ProjectAccess): Promise<ChannelListDto> {
    const items = await this.channels.listItems(project.project.id);
    return { items, count: items.length };
  }
}

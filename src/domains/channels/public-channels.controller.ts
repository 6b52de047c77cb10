import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { CurrentProject, PUBLIC_API_PREFIX, PublicApi } from '../../access/decorators';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import type { ProjectAccess } from '../../access/project-access';
import { ChannelsService } from './channels.service';
import { ChannelListDto } from './channel.dto';

@Controller(`${PUBLIC_API_PREFIX}/projects/:projectId/channels`)
export class PublicChannelsController {
  constructor(private readonly channels: ChannelsService) {}

  @Get()
  @PublicApi({ scope: 'projects:read', permission: 'can_view_content' })
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

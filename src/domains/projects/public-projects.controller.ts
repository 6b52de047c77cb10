import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { PUBLIC_API_PREFIX, PublicApi } from '../../access/decorators';
import { Principal } from '../../access/principal';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { PublicProjectListDto } from './project.dto';
import { ProjectsService, toPublicProject } from './projects.service';

@Controller(`${PUBLIC_API_PREFIX}/projects`)
export class PublicProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  @PublicApi({ scope: 'projects:read' })
  @ApiOperation({ summary: 'Projects the key can access, as owner or team member' })
  @ApiOkResponse({ type: PublicProjectListDto })
  @ApiErrors('unauthorized', 'insufficient_scope', 'rate_limit_exceeded')
  async list(@Principal() who: Principal): Promise<PublicProjectListDto> {
    const items = (await this.projects.listAccessible(who.user.id)).map(toPublicProject);
    return { items, count: items.length };
  }
}

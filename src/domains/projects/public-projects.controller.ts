import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiKeyAuth, PUBLIC_API_PREFIX, RequireScope } from '../../access/decorators';
import { Principal } from '../../access/principal';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { PublicProjectListDto } from './dto/project.dto';
import { ProjectsService, toPublicProject } from './projects.service';

@Controller(`${PUBLIC_API_PREFIX}/projects`)
@ApiKeyAuth()
export class PublicProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  @RequireScope('projects:read')
  @ApiOperation({ summary: 'Projects the key can access, as owner or team member' })
  @ApiOkResponse({ type: PublicProjectListDto })
  @ApiErrors('unauthorized', 'insufficient_scope', 'rate_limit_exceeded')
  async list(@Principal() who: Principal): Promise<PublicProjectListDto> {
    const items = (await this.projects.listAccessible(who.user.id)).map(toPublicProject);
    return { items, count: items.length };
  }
}

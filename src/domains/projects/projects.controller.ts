import { Body, Controller, Get, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { AnySignedInUser, SessionAuth } from '../../access/decorators';
import { Principal } from '../../access/principal';
import { CurrentProject, RequirePermission } from '../../access/require-permission';
import {
  AppProjectDto,
  AppProjectListDto,
  CreateProjectDto,
  UpdateProjectDto,
} from './dto/project.dto';
import type { ProjectAccess } from '../../access/project-access';
import { ProjectsService, toAppProject } from './projects.service';

@Controller('api/projects')
@SessionAuth()
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  @AnySignedInUser()
  @ApiOperation({ summary: 'My projects, with my role and permission flags' })
  @ApiOkResponse({ type: AppProjectListDto })
  async list(@Principal() who: Principal): Promise<AppProjectListDto> {
    const items = (await this.projects.listAccessible(who.user.id)).map(toAppProject);
    return { items, count: items.length };
  }

  @Post()
  @AnySignedInUser()
  @ApiOperation({ summary: 'Create a project owned by the caller' })
  @ApiCreatedResponse({ type: AppProjectDto })
  async create(@Principal() who: Principal, @Body() dto: CreateProjectDto): Promise<AppProjectDto> {
    return toAppProject(await this.projects.create(who.user.id, dto.name, dto.timezone ?? 'UTC'));
  }

  @Put(':id')
  @RequirePermission('can_manage_settings', { param: 'id' })
  @ApiOperation({ summary: 'Change name, time zone, appearance or wallpaper' })
  @ApiOkResponse({ type: AppProjectDto })
  async update(
    @Principal() who: Principal,
    @CurrentProject() project: ProjectAccess,
    @Body() dto: UpdateProjectDto,
  ): Promise<AppProjectDto> {
    return toAppProject(await this.projects.update(project, who.user.id, dto));
  }
}

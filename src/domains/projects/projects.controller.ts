import { Body, Controller, Get, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { AppApi, CurrentProject } from '../../access/decorators';
import { Principal } from '../../access/principal';
import {
  AppProjectDto,
  AppProjectListDto,
  CreateProjectDto,
  UpdateProjectDto,
} from './project.dto';
import type { ProjectAccess } from '../../access/project-access';
import { ProjectsService, toAppProject } from './projects.service';

@Controller('api/projects')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  @AppApi({ anySignedInUser: true })
  @ApiOperation({ summary: 'My projects, with my role and permission flags' })
  @ApiOkResponse({ type: AppProjectListDto })
  async list(@Principal() who: Principal): Promise<AppProjectListDto> {
    const items = (await this.projects.listAccessible(who.user.id)).map(toAppProject);
    return { items, count: items.length };
  }

  @Post()
  @AppApi({ anySignedInUser: true })
  @ApiOperation({ summary: 'Create a project owned by the caller' })
  @ApiCreatedResponse({ type: AppProjectDto })
  async create(@Principal() who: Principal, @Body() dto: CreateProjectDto): Promise<AppProjectDto> {
    return toAppProject(await this.projects.create(who.user.id, dto.name, dto.timezone ?? 'UTC'));
  }

  @Put(':id')
  @AppApi({ permission: 'can_manage_settings', project: { param: 'id' } })
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

import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
} from '@nestjs/swagger';
import { AppApi, CurrentProject, ProjectSource } from '../../access/decorators';
import { Principal } from '../../access/principal';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { ParseIdPipe } from '../../http/errors/parse-id.pipe';
import type { ProjectAccess } from '../../access/project-access';
import {
  CreateTemplateDto,
  GenerateTemplateDto,
  TemplateDto,
  TemplateListDto,
  UpdateTemplateDto,
} from './template.dto';
import { TEMPLATE_NOT_FOUND } from './templates.repository';
import { TemplatesService } from './templates.service';

/** The template named by the path: its project is the route's. */
const BY_TEMPLATE: ProjectSource = {
  param: 'id',
  resource: 'template',
};
const TEMPLATE_ID = new ParseIdPipe(TEMPLATE_NOT_FOUND.code, TEMPLATE_NOT_FOUND.message);

/** Every template operation, generation included, needs can_manage_templates. */
@Controller('api/posts/templates')
@ApiErrors('unauthorized', 'forbidden', 'project_not_found')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Get()
  @AppApi({ permission: 'can_manage_templates' })
  @ApiOperation({ summary: 'The project’s post templates, newest first' })
  @ApiQuery({ name: 'project_id', type: Number })
  @ApiOkResponse({ type: TemplateListDto })
  list(@CurrentProject() project: ProjectAccess): Promise<TemplateListDto> {
    return this.templates.list(project.project.id);
  }

  @Post()
  @AppApi({ permission: 'can_manage_templates' })
  @ApiOperation({ summary: 'Create a template' })
  @ApiCreatedResponse({ type: TemplateDto })
  @ApiErrors('validation_failed')
  create(
    @Principal() who: Principal,
    @CurrentProject() project: ProjectAccess,
    @Body() dto: CreateTemplateDto,
  ): Promise<TemplateDto> {
    return this.templates.create(project.project.id, who.user.id, dto);
  }

  @Post('generate')
  @AppApi({ permission: 'can_manage_templates' })
  @ApiOperation({ summary: 'Create a template whose text the AI writes' })
  @ApiCreatedResponse({ type: TemplateDto })
  @ApiErrors('validation_failed', 'ai_failed', 'ai_unavailable')
  generate(
    @Principal() who: Principal,
    @CurrentProject() project: ProjectAccess,
    @Body() dto: GenerateTemplateDto,
  ): Promise<TemplateDto> {
    return this.templates.generate(project.project.id, who.user.id, dto.prompt, dto.name);
  }

  @Get(':id')
  @AppApi({ permission: 'can_manage_templates', project: BY_TEMPLATE })
  @ApiOperation({ summary: 'One template' })
  @ApiOkResponse({ type: TemplateDto })
  @ApiErrors('template_not_found')
  get(
    @CurrentProject() project: ProjectAccess,
    @Param('id', TEMPLATE_ID) id: number,
  ): Promise<TemplateDto> {
    return this.templates.get(project.project.id, id);
  }

  @Put(':id')
  @AppApi({ permission: 'can_manage_templates', project: BY_TEMPLATE })
  @ApiOperation({ summary: 'Change a template’s name or text' })
  @ApiOkResponse({ type: TemplateDto })
  @ApiErrors('template_not_found', 'validation_failed')
  update(
    @CurrentProject() project: ProjectAccess,
    @Param('id', TEMPLATE_ID) id: number,
    @Body() dto: UpdateTemplateDto,
  ): Promise<TemplateDto> {
    return this.templates.update(project.project.id, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @AppApi({ permission: 'can_manage_templates', project: BY_TEMPLATE })
  @ApiOperation({ summary: 'Delete a template' })
  @ApiNoContentResponse()
  @ApiErrors('template_not_found')
  remove(
    @CurrentProject() project: ProjectAccess,
    @Param('id', TEMPLATE_ID) id: number,
  ): Promise<void> {
    return this.templates.remove(project.project.id, id);
  }
}

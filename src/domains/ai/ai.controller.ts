import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppApi, CurrentProject } from '../../access/decorators';
import { Principal } from '../../access/principal';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { MediaAssetDto } from '../media/media-asset.dto';
import type { ProjectAccess } from '../../access/project-access';
import { AiQuota } from '../../infrastructure/rate-limit/ai-quota';
import { AiService } from './ai.service';
import { GenerateDto, GeneratedTextDto } from './ai.dto';

@Controller('api/posts')
@ApiErrors(
  'unauthorized',
  'forbidden',
  'project_not_found',
  'validation_failed',
  'ai_failed',
  'ai_unavailable',
  'rate_limit_exceeded',
)
export class AiController {
  constructor(
    private readonly ai: AiService,
    private readonly quota: AiQuota,
  ) {}

  @Post('generate-post')
  @HttpCode(200)
  @AppApi({ permission: 'can_use_ai' })
  @ApiOperation({
    summary: 'Write a post text with AI',
    description: 'Counts against the user’s hourly AI quota (AI_GENERATIONS_PER_HOUR, 30).',
  })
  @ApiOkResponse({ type: GeneratedTextDto })
  async generatePost(
    @Principal() who: Principal,
    @Body() dto: GenerateDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GeneratedTextDto> {
    await this.quota.consume(who.user.id, res);
    return this.ai.generatePost(dto.prompt);
  }

  @Post('generate-image')
  @AppApi({ permission: 'can_use_ai' })
  @ApiOperation({
    summary: 'Draw an image with AI; stored as a MediaAsset of the project',
    description: 'Counts against the user’s hourly AI quota (AI_GENERATIONS_PER_HOUR, 30).',
  })
  @ApiCreatedResponse({ type: MediaAssetDto })
  @ApiErrors('unsupported_media_type')
  async generateImage(
    @Principal() who: Principal,
    @CurrentProject() project: ProjectAccess,
    @Body() dto: GenerateDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<MediaAssetDto> {
    await this.quota.consume(who.user.id, res);
    return this.ai.generateImage(project.project.id, who.user.id, dto.prompt);
  }
}

import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { SessionAuth } from '../auth/decorators';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../errors/api-errors.decorator';
import { MediaAssetDto } from '../media/dto/media-asset.dto';
import { CurrentProject, RequirePermission } from '../members/require-permission';
import type { ProjectAccess } from '../projects/project-access';
import { AiService } from './ai.service';
import { GenerateDto, GeneratedTextDto } from './dto/ai.dto';

@Controller('api/posts')
@SessionAuth()
@ApiErrors(
  'unauthorized',
  'forbidden',
  'project_not_found',
  'validation_failed',
  'ai_failed',
  'ai_unavailable',
)
export class AiController {
  constructor(private readonly ai: AiService) {}

  @Post('generate-post')
  @HttpCode(200)
  @RequirePermission('can_use_ai')
  @ApiOperation({ summary: 'Write a post text with AI' })
  @ApiOkResponse({ type: GeneratedTextDto })
  generatePost(@Body() dto: GenerateDto): Promise<GeneratedTextDto> {
    return this.ai.generatePost(dto.prompt);
  }

  @Post('generate-image')
  @RequirePermission('can_use_ai')
  @ApiOperation({ summary: 'Draw an image with AI; stored as a MediaAsset of the project' })
  @ApiCreatedResponse({ type: MediaAssetDto })
  @ApiErrors('unsupported_media_type')
  generateImage(
    @Principal() who: Principal,
    @CurrentProject() project: ProjectAccess,
    @Body() dto: GenerateDto,
  ): Promise<MediaAssetDto> {
    return this.ai.generateImage(project.project.id, who.user.id, dto.prompt);
  }
}

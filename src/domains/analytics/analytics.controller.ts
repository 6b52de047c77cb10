import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery } from '@nestjs/swagger';
import { SessionAuth } from '../../access/decorators';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { CurrentProject, RequirePermission } from '../../access/require-permission';
import type { ProjectAccess } from '../../access/project-access';
import { AnalyticsService } from './analytics.service';
import { ChannelStatsListDto } from './dto/channel-stats.dto';

@Controller('api/analytics')
@SessionAuth()
@ApiErrors('unauthorized', 'forbidden', 'project_not_found', 'validation_failed')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('channels')
  @RequirePermission('can_view_analytics')
  @ApiOperation({ summary: 'Per channel: scheduled, published and failed posts' })
  @ApiQuery({ name: 'project_id', type: Number })
  @ApiOkResponse({ type: ChannelStatsListDto })
  channels(@CurrentProject() project: ProjectAccess): Promise<ChannelStatsListDto> {
    return this.analytics.channels(project.project.id);
  }
}

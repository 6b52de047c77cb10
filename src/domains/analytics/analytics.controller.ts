import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery } from '@nestjs/swagger';
import { AppApi, CurrentProject } from '../../access/decorators';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import type { ProjectAccess } from '../../access/project-access';
import { AnalyticsService } from './analytics.service';
import { ChannelStatsListDto } from './channel-stats.dto';

@Controller('api/analytics')
@ApiErrors('unauthorized', 'forbidden', 'project_not_found', 'validation_failed')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('channels')
  @AppApi({ permission: 'can_view_analytics' })
  @ApiOperation({ summary: 'Per channel: scheduled, published and failed posts' })
  @ApiQuery({ name: 'project_id', type: Number })
  @ApiOkResponse({ type: ChannelStatsListDto })
  channels(@CurrentProject() project: ProjectAccess): Promise<ChannelStatsListDto> {
    return this.analytics.channels(project.project.id);
  }
}

import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { AppApi, CurrentProject, ProjectSource } from '../../access/decorators';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import type { ProjectAccess } from '../../access/project-access';
import {
  CreateWebhookDto,
  ListDeliveriesQuery,
  WebhookCreatedDto,
  WebhookDeliveryListDto,
  WebhookListDto,
  WebhookTestDto,
} from './webhook.dto';
import { WebhookIdPipe, WebhookOperation } from './webhook-operations';
import { WebhooksService } from './webhooks.service';

const BY_PROJECT: ProjectSource = { param: 'id' };

/** The same webhook management on the application API. */
@Controller('api/projects/:id/webhooks')
@ApiParam({ name: 'id', type: Number })
@ApiErrors('unauthorized', 'forbidden', 'project_not_found')
export class AppWebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @AppApi({ permission: 'can_manage_settings', project: BY_PROJECT })
  @WebhookOperation.create()
  create(
    @CurrentProject() project: ProjectAccess,
    @Body() dto: CreateWebhookDto,
  ): Promise<WebhookCreatedDto> {
    return this.webhooks.create(project, dto);
  }

  @Get()
  @AppApi({ permission: 'can_manage_settings', project: BY_PROJECT })
  @WebhookOperation.list()
  list(@CurrentProject() project: ProjectAccess): Promise<WebhookListDto> {
    return this.webhooks.list(project);
  }

  @Delete(':webhookId')
  @AppApi({ permission: 'can_manage_settings', project: BY_PROJECT })
  @WebhookOperation.remove()
  remove(
    @CurrentProject() project: ProjectAccess,
    @Param('webhookId', WebhookIdPipe) webhookId: number,
  ): Promise<void> {
    return this.webhooks.remove(project, webhookId);
  }

  @Get(':webhookId/deliveries')
  @AppApi({ permission: 'can_manage_settings', project: BY_PROJECT })
  @WebhookOperation.deliveries()
  deliveries(
    @CurrentProject() project: ProjectAccess,
    @Param('webhookId', WebhookIdPipe) webhookId: number,
    @Query() query: ListDeliveriesQuery,
  ): Promise<WebhookDeliveryListDto> {
    return this.webhooks.deliveries(project, webhookId, query);
  }

  @Post(':webhookId/test')
  @AppApi({ permission: 'can_manage_settings', project: BY_PROJECT })
  @WebhookOperation.test()
  test(
    @CurrentProject() project: ProjectAccess,
    @Param('webhookId', WebhookIdPipe) webhookId: number,
  ): Promise<WebhookTestDto> {
    return this.webhooks.sendTest(project, webhookId);
  }
}

import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { CurrentProject, PUBLIC_API_PREFIX, PublicApi } from '../../access/decorators';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { Idempotent } from '../../http/idempotency/idempotent.decorator';
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

/** Webhook endpoints of a project, on the public API. */
@Controller(`${PUBLIC_API_PREFIX}/projects/:projectId/webhooks`)
@PublicApi({ scope: 'webhooks:manage', permission: 'can_manage_settings', rateLimit: 'other' })
@ApiParam({ name: 'projectId', type: Number })
@ApiErrors(
  'unauthorized',
  'insufficient_scope',
  'project_not_found',
  'forbidden',
  'rate_limit_exceeded',
)
export class PublicWebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @Idempotent()
  @WebhookOperation.create()
  create(
    @CurrentProject() project: ProjectAccess,
    @Body() dto: CreateWebhookDto,
  ): Promise<WebhookCreatedDto> {
    return this.webhooks.create(project, dto);
  }

  @Get()
  @WebhookOperation.list()
  list(@CurrentProject() project: ProjectAccess): Promise<WebhookListDto> {
    return this.webhooks.list(project);
  }

  @Delete(':webhookId')
  @WebhookOperation.remove()
  remove(
    @CurrentProject() project: ProjectAccess,
    @Param('webhookId', WebhookIdPipe) webhookId: number,
  ): Promise<void> {
    return this.webhooks.remove(project, webhookId);
  }

  @Get(':webhookId/deliveries')
  @WebhookOperation.deliveries()
  deliveries(
    @CurrentProject() project: ProjectAccess,
    @Param('webhookId', WebhookIdPipe) webhookId: number,
    @Query() query: ListDeliveriesQuery,
  ): Promise<WebhookDeliveryListDto> {
    return this.webhooks.deliveries(project, webhookId, query);
  }

  @Post(':webhookId/test')
  @Idempotent()
  @WebhookOperation.test()
  test(
    @CurrentProject() project: ProjectAccess,
    @Param('webhookId', WebhookIdPipe) webhookId: number,
  ): Promise<WebhookTestDto> {
    return this.webhooks.sendTest(project, webhookId);
  }
}

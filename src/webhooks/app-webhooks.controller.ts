import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { SessionAuth } from '../auth/decorators';
import { ApiErrors } from '../errors/api-errors.decorator';
import { ParseIdPipe } from '../errors/parse-id.pipe';
import { CurrentProject, ProjectSource, RequirePermission } from '../members/require-permission';
import type { ProjectAccess } from '../projects/project-access';
import {
  CreateWebhookDto,
  ListDeliveriesQuery,
  WebhookCreatedDto,
  WebhookDeliveryListDto,
  WebhookListDto,
  WebhookTestDto,
} from './dto/webhook.dto';
import { WEBHOOK_NOT_FOUND, WebhooksService } from './webhooks.service';

const BY_PROJECT: ProjectSource = { param: 'id' };
const WebhookIdPipe = new ParseIdPipe(WEBHOOK_NOT_FOUND.code, WEBHOOK_NOT_FOUND.message);

/** D21: the same webhook management on the application API. */
@Controller('api/projects/:id/webhooks')
@SessionAuth()
@ApiParam({ name: 'id', type: Number })
@ApiErrors('unauthorized', 'forbidden', 'project_not_found')
export class AppWebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @RequirePermission('can_manage_settings', BY_PROJECT)
  @ApiOperation({
    summary: 'Add a webhook endpoint; the answer holds its signing secret, shown only here',
  })
  @ApiCreatedResponse({ type: WebhookCreatedDto })
  @ApiErrors(
    'validation_failed',
    'invalid_json',
    'payload_too_large',
    'invalid_url',
    'url_not_allowed',
  )
  create(
    @CurrentProject() project: ProjectAccess,
    @Body() dto: CreateWebhookDto,
  ): Promise<WebhookCreatedDto> {
    return this.webhooks.create(project.project.id, dto);
  }

  @Get()
  @RequirePermission('can_manage_settings', BY_PROJECT)
  @ApiOperation({ summary: 'The project’s webhook endpoints (never their secrets)' })
  @ApiOkResponse({ type: WebhookListDto })
  list(@CurrentProject() project: ProjectAccess): Promise<WebhookListDto> {
    return this.webhooks.list(project.project.id);
  }

  @Delete(':webhookId')
  @HttpCode(204)
  @RequirePermission('can_manage_settings', BY_PROJECT)
  @ApiOperation({ summary: 'Remove a webhook endpoint; nothing more is sent to it' })
  @ApiParam({ name: 'webhookId', type: Number })
  @ApiNoContentResponse()
  @ApiErrors('webhook_not_found')
  remove(
    @CurrentProject() project: ProjectAccess,
    @Param('webhookId', WebhookIdPipe) webhookId: number,
  ): Promise<void> {
    return this.webhooks.remove(project.project.id, webhookId);
  }

  @Get(':webhookId/deliveries')
  @RequirePermission('can_manage_settings', BY_PROJECT)
  @ApiOperation({ summary: 'Delivery attempts to the endpoint, newest first (kept 30 days)' })
  @ApiParam({ name: 'webhookId', type: Number })
  @ApiOkResponse({ type: WebhookDeliveryListDto })
  @ApiErrors('webhook_not_found', 'validation_failed')
  deliveries(
    @CurrentProject() project: ProjectAccess,
    @Param('webhookId', WebhookIdPipe) webhookId: number,
    @Query() query: ListDeliveriesQuery,
  ): Promise<WebhookDeliveryListDto> {
    return this.webhooks.deliveries(project.project.id, webhookId, query.limit);
  }

  @Post(':webhookId/test')
  @HttpCode(202)
  @RequirePermission('can_manage_settings', BY_PROJECT)
  @ApiOperation({ summary: 'Send a webhook.test event to the endpoint' })
  @ApiParam({ name: 'webhookId', type: Number })
  @ApiAcceptedResponse({ type: WebhookTestDto })
  @ApiErrors('webhook_not_found')
  test(
    @CurrentProject() project: ProjectAccess,
    @Param('webhookId', WebhookIdPipe) webhookId: number,
  ): Promise<WebhookTestDto> {
    return this.webhooks.sendTest(project.project.id, webhookId);
  }
}

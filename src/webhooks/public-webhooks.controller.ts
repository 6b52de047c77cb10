import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { ApiKeyAuth, PUBLIC_API_PREFIX, RequireScope } from '../auth/decorators';
import { ApiErrors } from '../errors/api-errors.decorator';
import { ParseIdPipe } from '../errors/parse-id.pipe';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { CurrentProject, RequirePermission } from '../members/require-permission';
import type { ProjectAccess } from '../projects/project-access';
import { RateLimitCategory } from '../rate-limit/rate-limit-category';
import {
  CreateWebhookDto,
  ListDeliveriesQuery,
  WebhookCreatedDto,
  WebhookDeliveryListDto,
  WebhookListDto,
  WebhookTestDto,
} from './dto/webhook.dto';
import { WEBHOOK_NOT_FOUND, WebhooksService } from './webhooks.service';

const WebhookIdPipe = new ParseIdPipe(WEBHOOK_NOT_FOUND.code, WEBHOOK_NOT_FOUND.message);

/** D21: webhook endpoints of a project, on the public API. */
@Controller(`${PUBLIC_API_PREFIX}/projects/:projectId/webhooks`)
@ApiKeyAuth()
@ApiParam({ name: 'projectId', type: Number })
@RateLimitCategory('other')
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
  @RequireScope('webhooks:manage')
  @RequirePermission('can_manage_settings')
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
  @RequireScope('webhooks:manage')
  @RequirePermission('can_manage_settings')
  @ApiOperation({ summary: 'The project’s webhook endpoints (never their secrets)' })
  @ApiOkResponse({ type: WebhookListDto })
  list(@CurrentProject() project: ProjectAccess): Promise<WebhookListDto> {
    return this.webhooks.list(project.project.id);
  }

  @Delete(':webhookId')
  @HttpCode(204)
  @RequireScope('webhooks:manage')
  @RequirePermission('can_manage_settings')
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
  @RequireScope('webhooks:manage')
  @RequirePermission('can_manage_settings')
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
  @Idempotent()
  @HttpCode(202)
  @RequireScope('webhooks:manage')
  @RequirePermission('can_manage_settings')
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

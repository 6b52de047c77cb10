import { Injectable } from '@nestjs/common';
import { SecretsService } from '../../infrastructure/config/secrets.service';
import { AppError } from '../../http/errors/error-codes';
import {
  DEFAULT_DELIVERY_LIST_LIMIT,
  type CreateWebhookDto,
  type ListDeliveriesQuery,
  type WebhookCreatedDto,
  type WebhookDeliveryListDto,
  type WebhookListDto,
  type WebhookTestDto,
} from './webhook.dto';
import { decodeDeliveryCursor, encodeDeliveryCursor } from './delivery-cursor';
import { SUBSCRIBABLE_EVENTS, TEST_EVENT } from './webhook-events';
import { WebhookSender } from './webhook-sender';
import { generateWebhookSecret } from './webhook-signature';
import { toDelivery, toWebhook } from './webhooks.mapper';
import {
  MAX_WEBHOOKS_PER_PROJECT,
  type WebhookScope,
  WebhooksRepository,
} from './webhooks.repository';
import type { ProjectAccess } from '../../access/project-access';

export const WEBHOOK_NOT_FOUND = {
  code: 'webhook_not_found',
  message: 'Webhook not found',
} as const;

/** docs/api-rules.md#webhooks; the same for both APIs. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly repo: WebhooksRepository,
    private readonly sender: WebhookSender,
    private readonly secrets: SecretsService,
  ) {}

  async create(project: ProjectAccess, dto: CreateWebhookDto): Promise<WebhookCreatedDto> {
    await this.sender.check(dto.url);
    const secret = generateWebhookSecret();
    const events = SUBSCRIBABLE_EVENTS.filter((event) => dto.events.includes(event));
    const row = await this.repo.insert(scopeOf(project), {
      url: dto.url,
      events,
      secretEncrypted: this.secrets.seal(secret),
    });
    if (row === null) {
      throw new AppError(
        'limit_reached',
        `A project holds at most ${MAX_WEBHOOKS_PER_PROJECT} webhooks; delete one first`,
      );
    }
    return { ...toWebhook(row), secret };
  }

  async list(project: ProjectAccess): Promise<WebhookListDto> {
    const items = (await this.repo.list(scopeOf(project))).map(toWebhook);
    return { items, count: items.length };
  }

  async remove(project: ProjectAccess, webhookId: number): Promise<void> {
    if (!(await this.repo.delete(scopeOf(project), webhookId))) throw webhookNotFound();
  }

  async deliveries(
    project: ProjectAccess,
    webhookId: number,
    query: ListDeliveriesQuery = {},
  ): Promise<WebhookDeliveryListDto> {
    const limit = query.limit ?? DEFAULT_DELIVERY_LIST_LIMIT;
    const before =
      query.cursor === undefined
        ? null
        : decodeDeliveryCursor(this.secrets.verifyToken(query.cursor), webhookId);
    if (query.cursor !== undefined && before === null)
      throw new AppError('validation_failed', 'cursor is not a cursor of this log', [
        { field: 'cursor', message: 'cursor is not a cursor of this log' },
      ]);
    if (!(await this.repo.exists(scopeOf(project), webhookId))) throw webhookNotFound();
    const rows = await this.repo.deliveries(webhookId, limit + 1, before);
    const page = rows.slice(0, limit);
    const sign = (data: string) => this.secrets.signToken(data);
    return {
      items: page.map(toDelivery),
      count: page.length,
      next_cursor:
        rows.length > limit
          ? encodeDeliveryCursor(sign, webhookId, page[page.length - 1].id)
          : null,
    };
  }

  /** The worker delivers it like any other event. */
  async sendTest(project: ProjectAccess, webhookId: number): Promise<WebhookTestDto> {
    const eventId = await this.repo.insertTestEvent(scopeOf(project), webhookId, TEST_EVENT);
    if (eventId === null) throw webhookNotFound();
    return { event_id: eventId };
  }
}

/** A test key manages test webhooks; a live key and the application API manage live ones. */
function scopeOf(access: ProjectAccess): WebhookScope {
  return { projectId: access.project.id, test: access.test };
}

function webhookNotFound(): AppError {
  return new AppError(WEBHOOK_NOT_FOUND.code, WEBHOOK_NOT_FOUND.message);
}

import { Injectable } from '@nestjs/common';
import { SecretsService } from '../crypto/secrets.service';
import { AppError } from '../errors/error-codes';
import {
  DEFAULT_DELIVERY_LIST_LIMIT,
  type CreateWebhookDto,
  type WebhookCreatedDto,
  type WebhookDeliveryListDto,
  type WebhookListDto,
  type WebhookTestDto,
} from './dto/webhook.dto';
import { SUBSCRIBABLE_EVENTS, TEST_EVENT } from './webhook-events';
import { WebhookSender } from './webhook-sender';
import { generateWebhookSecret } from './webhook-signature';
import { toDelivery, toWebhook } from './webhooks.mapper';
import { WebhooksRepository } from './webhooks.repository';

export const WEBHOOK_NOT_FOUND = {
  code: 'webhook_not_found',
  message: 'Webhook not found',
} as const;

/** Managing a project's webhook endpoints (D21); the same for both APIs. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly repo: WebhooksRepository,
    private readonly sender: WebhookSender,
    private readonly secrets: SecretsService,
  ) {}

  async create(projectId: number, dto: CreateWebhookDto): Promise<WebhookCreatedDto> {
    await this.sender.check(dto.url);
    const secret = generateWebhookSecret();
    const events = SUBSCRIBABLE_EVENTS.filter((event) => dto.events.includes(event));
    const row = await this.repo.insert({
      projectId,
      url: dto.url,
      events,
      secretEncrypted: this.secrets.seal(secret),
    });
    return { ...toWebhook(row), secret };
  }

  async list(projectId: number): Promise<WebhookListDto> {
    const items = (await this.repo.list(projectId)).map(toWebhook);
    return { items, count: items.length };
  }

  async remove(projectId: number, webhookId: number): Promise<void> {
    if (!(await this.repo.delete(projectId, webhookId))) throw webhookNotFound();
  }

  async deliveries(
    projectId: number,
    webhookId: number,
    limit = DEFAULT_DELIVERY_LIST_LIMIT,
  ): Promise<WebhookDeliveryListDto> {
    if (!(await this.repo.exists(projectId, webhookId))) throw webhookNotFound();
    const items = (await this.repo.deliveries(webhookId, limit)).map(toDelivery);
    return { items, count: items.length };
  }

  /** Records a `webhook.test` event for this endpoint; the worker delivers it like any other. */
  async sendTest(projectId: number, webhookId: number): Promise<WebhookTestDto> {
    const eventId = await this.repo.insertTestEvent(projectId, webhookId, TEST_EVENT);
    if (eventId === null) throw webhookNotFound();
    return { event_id: eventId };
  }
}

function webhookNotFound(): AppError {
  return new AppError(WEBHOOK_NOT_FOUND.code, WEBHOOK_NOT_FOUND.message);
}

import { formatTimestamp } from '../../infrastructure/database/timestamps';
import type { WebhookDeliveryDto, WebhookDto } from './webhook.dto';
import type { DeliveryRow, WebhookRow } from './webhooks.repository';

export function toWebhook(row: WebhookRow): WebhookDto {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    test: row.test,
    created_at: formatTimestamp(row.created_at),
  };
}

export function toDelivery(row: DeliveryRow): WebhookDeliveryDto {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt: row.attempt,
    status_code: row.status_code,
    error: row.error,
    duration_ms: row.duration_ms,
    created_at: formatTimestamp(row.created_at),
  };
}

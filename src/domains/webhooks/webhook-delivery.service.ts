import { Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { SecretsService } from '../../infrastructure/config/secrets.service';
import { formatTimestamp } from '../../infrastructure/database/timestamps';
import { Metrics } from '../../infrastructure/metrics/metrics.service';
import { WebhookSender, type AttemptOutcome } from './webhook-sender';
import { WebhookProducer } from './webhook.queue';
import { WebhooksRepository } from './webhooks.repository';

/** The address check and the outcome's write come on top of the wait for the answer. */
const CLAIM_MARGIN_MS = 5_000;

/** Idempotent: claimed for exactly the attempt the job names. */
@Injectable()
export class WebhookDeliveryService {
  private readonly logger = new Logger(WebhookDeliveryService.name);
  /** Past it, the attempt's outcome counts as lost. */
  private readonly claimMs: number;

  constructor(
    private readonly repo: WebhooksRepository,
    private readonly sender: WebhookSender,
    private readonly producer: WebhookProducer,
    private readonly secrets: SecretsService,
    private readonly metrics: Metrics,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    this.claimMs = config.webhooks.timeoutMs + CLAIM_MARGIN_MS;
  }

  /** The attempt's outcome; null when nothing was sent. */
  async run(sendId: number, attempt: number): Promise<AttemptOutcome | null> {
    const send = await this.repo.claim(sendId, attempt, this.claimMs);
    if (!send) return null;
    if (!send.enabled || send.data === null) {
      await this.repo.cancel(send.id);
      return null;
    }
    const body = JSON.stringify({
      type: send.type,
      timestamp: formatTimestamp(send.occurred_at),
      data: send.data,
    });
    const outcome = await this.sender.send({
      url: send.url,
      secret: this.secrets.open(send.secret_encrypted),
      eventId: send.event_id,
      body,
    });
    const { retryDelaysMs, disableAfterEvents } = this.config.webhooks;
    const retryInMs = outcome.ok ? null : (retryDelaysMs[send.attempts] ?? null);
    await this.repo.recordAttempt(
      send,
      outcome,
      retryInMs,
      disableAfterEvents,
      `Disabled after ${disableAfterEvents} events in a row failed every delivery attempt`,
    );
    this.metrics.webhookDelivery(
      outcome.ok ? 'delivered' : retryInMs === null ? 'failed' : 'retrying',
    );
    if (outcome.ok) return outcome;
    this.logger.warn(
      `Webhook ${send.webhook_id}, event ${send.event_id}, attempt ${send.attempts + 1}: ${outcome.error}` +
        (retryInMs === null ? '; no retry left' : `; retry in ${retryInMs} ms`),
    );
    if (retryInMs === null) return outcome;
    const next = send.attempts + 1;
    const job = {
      id: send.id,
      attempt: next,
      webhookId: send.webhook_id,
      dueMs: Date.now() + retryInMs,
    };
    if (await this.producer.enqueue(job)) await this.repo.markQueued([job]);
    return outcome;
  }
}

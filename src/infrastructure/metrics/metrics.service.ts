import { Injectable, Logger } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PLATFORM_DESCRIPTORS } from '../../domains/platforms/platforms';
import { boundedQueueCall } from '../redis/bull-queue';
import { QueueRegistry } from './queue-registry';

/** One label for every unmatched route, so raw paths never become series. */
export const UNMATCHED_ROUTE = 'unmatched';

export const QUEUE_STATES = [
  'waiting',
  'active',
  'delayed',
  'completed',
  'failed',
  'paused',
] as const;

const QUEUE_READ_TIMEOUT_MS = 2_000;

export type PublicationOutcome = 'published' | 'failed';
export type WebhookDeliveryOutcome = 'delivered' | 'retrying' | 'failed';
export type PlatformCallOutcome = 'ok' | 'api_error' | 'transport_error';

/** One registry per app (tests run several); closed label sets; queue gauges read at scrape. */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  private readonly logger = new Logger(Metrics.name);

  private readonly httpDuration = new Histogram({
    name: 'herald_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly publicationTargets = new Counter({
    name: 'herald_publication_targets_total',
    help: 'Publication targets that reached a final state, by platform, outcome and error code',
    labelNames: ['platform', 'outcome', 'error_code'] as const,
    registers: [this.registry],
  });

  private readonly tokenRenewals = new Counter({
    name: 'herald_token_renewals_total',
    help: 'Renewals of expiring access tokens by platform and outcome (renewed, refused, failed)',
    labelNames: ['platform', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly webhookDeliveries = new Counter({
    name: 'herald_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly rateLimited = new Counter({
    name: 'herald_rate_limited_total',
    help: 'Requests refused with 429, by rate limit category',
    labelNames: ['category'] as const,
    registers: [this.registry],
  });

  private readonly apiKeyLookupsTotal = new Counter({
    name: 'herald_api_key_lookups_total',
    help: "API key authentications by where the key was found: this process's memory or the database",
    labelNames: ['source'] as const,
    registers: [this.registry],
  });

  private readonly projectAccessLookupsTotal = new Counter({
    name: 'herald_project_access_lookups_total',
    help: "Users' access to a project checked, by where it was found: this process's memory or the database",
    labelNames: ['source'] as const,
    registers: [this.registry],
  });

  private readonly apiKeyRevocationsListening = new Gauge({
    name: 'herald_api_key_revocations_listening',
    help: '1 while this process hears key revocations and project changes, and may use its memory of keys and accesses',
    registers: [this.registry],
  });

  private readonly platformCalls = new Map(
    PLATFORM_DESCRIPTORS.map(({ name, callMetric }) => [
      name,
      {
        methods: new Set(callMetric.methods),
        histogram: new Histogram({
          name: callMetric.name,
          help: callMetric.help,
          labelNames: ['method', 'outcome'] as const,
          buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
          registers: [this.registry],
        }),
      },
    ]),
  );

  constructor(queues: QueueRegistry) {
    collectDefaultMetrics({ register: this.registry });
    const logger = this.logger;
    new Gauge({
      name: 'herald_queue_jobs',
      help: 'Jobs in each queue by state, read from Redis at scrape time',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const queue of queues.queues()) {
          try {
            const counts = await boundedQueueCall(queue.getJobCounts(), QUEUE_READ_TIMEOUT_MS);
            const paused = await boundedQueueCall(queue.getPausedCount(), QUEUE_READ_TIMEOUT_MS);
            const byState: Record<string, number> = { ...counts, paused };
            for (const state of QUEUE_STATES)
              this.set({ queue: queue.name, state }, byState[state] ?? 0);
          } catch (error) {
            // Redis away: the gauge is absent for this queue rather than a stale or false zero.
            logger.warn(`Queue ${queue.name} not measured: ${(error as Error).message}`);
          }
        }
      },
    });
  }

  /** `route` must be a template (`/api/posts/:id`) or UNMATCHED_ROUTE. */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }

  publicationTarget(platform: string, outcome: PublicationOutcome, errorCode: string | null): void {
    this.publicationTargets.inc({ platform, outcome, error_code: errorCode ?? '' });
  }

  tokenRenewal(platform: string, outcome: 'renewed' | 'refused' | 'failed'): void {
    this.tokenRenewals.inc({ platform, outcome });
  }

  webhookDelivery(outcome: WebhookDeliveryOutcome): void {
    this.webhookDeliveries.inc({ outcome });
  }

  rateLimit(category: string): void {
    this.rateLimited.inc({ category });
  }

  /** Incremented on the request path without a label lookup. */
  apiKeyLookups(source: 'memory' | 'database'): { inc(): void } {
    return this.apiKeyLookupsTotal.labels({ source });
  }

  projectAccessLookups(source: 'memory' | 'database'): { inc(): void } {
    return this.projectAccessLookupsTotal.labels({ source });
  }

  apiKeyRevocationsHeard(listening: boolean): void {
    this.apiKeyRevocationsListening.set(listening ? 1 : 0);
  }

  platformCall(
    platform: string,
    method: string,
    outcome: PlatformCallOutcome,
    seconds: number,
  ): void {
    const calls = this.platformCalls.get(platform);
    if (!calls) return;
    const label = calls.methods.has(method) ? method : 'other';
    calls.histogram.observe({ method: label, outcome }, seconds);
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

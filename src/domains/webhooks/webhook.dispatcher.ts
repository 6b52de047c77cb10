import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { Client } from 'pg';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { PostsService } from '../posts/posts.service';
import { EndpointLanes } from './endpoint-lanes';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookProcessor } from './webhook.processor';
import { WebhookProducer, type SendJob } from './webhook.queue';
import { WebhooksRepository, type EventToFill, type SendToEnqueue } from './webhooks.repository';

const BATCH = 200;
export const DELIVERY_LOG_RETENTION_DAYS = 30;
const PURGE_INTERVAL_MS = 3_600_000;
/** Notified by webhook_sends' insert trigger (migration Webhooks). */
const SENDS_CHANNEL = 'webhook_sends';
const RELISTEN_DELAY_MS = 1_000;

/** Outbox to delivery (LISTEN, and a sweep): due sends in their endpoint's lane, others as jobs. */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private sweeping?: Promise<void>;
  private again = false;
  private listener?: Client;
  private closing = false;
  private lastPurge = 0;
  private readonly lanes: EndpointLanes;

  constructor(
    private readonly repo: WebhooksRepository,
    private readonly producer: WebhookProducer,
    private readonly posts: PostsService,
    delivery: WebhookDeliveryService,
    processor: WebhookProcessor,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    this.lanes = new EndpointLanes(
      processor.slots,
      // As long as the queue would hold it back for a busy endpoint.
      config.webhooks.timeoutMs,
      (send) =>
        delivery.run(send.id, send.attempt).catch((error: unknown) => {
          this.logger.warn(
            `Webhook send ${send.id} failed: ${(error as Error).message}; the sweep retries it`,
          );
          return null;
        }),
      // Left as they are, the sweep enqueues them once overdue.
      (sends) => void this.producer.enqueueMany(sends),
    );
  }

  onApplicationBootstrap(): void {
    if (this.config.appRole === 'api') return;
    void this.listen();
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.config.webhooks.sweepIntervalMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    await this.listener?.end().catch(() => undefined);
    await Promise.all([this.running, this.sweeping]);
    await this.lanes.drained();
  }

  /** A call during a run makes the run go round once more. */
  dispatch(): Promise<void> {
    if (this.closing) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => (this.running = undefined));
    return this.running;
  }

  sweep(): Promise<void> {
    if (this.closing) return Promise.resolve();
    this.sweeping ??= this.sweepOnce().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    await this.dispatch();
    try {
      await this.requeueOverdue();
      if (Date.now() - this.lastPurge > PURGE_INTERVAL_MS) {
        await this.repo.purge(DELIVERY_LOG_RETENTION_DAYS);
        this.lastPurge = Date.now();
      }
    } catch (error) {
      this.logger.warn(`Webhook sweep stopped early: ${(error as Error).message}`);
    }
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.fillEvents();
        await this.enqueueReady();
      } catch (error) {
        this.logger.warn(`Webhook dispatch stopped early: ${(error as Error).message}`);
        return;
      }
    } while (this.again && !this.closing);
  }

  private async fillEvents(): Promise<void> {
    for (;;) {
      const events = await this.repo.eventsToFill(BATCH);
      await this.repo.fillData(await this.dataOf(events));
      if (events.length < BATCH) return;
    }
  }

  /** Each post object as it now is, one read per project and mode; a test post's carries `test: true`. */
  private async dataOf(events: EventToFill[]) {
    const groups = new Map<string, { projectId: number; test: boolean; postIds: number[] }>();
    for (const { project_id: projectId, post_id: postId, post_test: test } of events) {
      if (postId === null || test === null) continue;
      const key = `${projectId}:${test}`;
      const group = groups.get(key) ?? { projectId, test, postIds: [] };
      group.postIds.push(postId);
      groups.set(key, group);
    }
    const found = await Promise.all(
      [...groups.values()].map(({ projectId, test, postIds }) =>
        this.posts.postObjects({ projectId, test }, postIds),
      ),
    );
    const posts = new Map(found.flatMap((objects) => [...objects]));
    return events.map((event) => {
      const post = event.post_id === null ? undefined : posts.get(event.post_id);
      if (post) return { id: event.id, data: { ...post, project_id: event.project_id } };
      // The post was deleted before its event left: what is still known of it.
      const data = {
        id: event.post_id,
        project_id: event.project_id,
        status: event.type.replace(/^post\./, ''),
      };
      return { id: event.id, data };
    });
  }

  private async enqueueReady(): Promise<void> {
    let afterId = 0;
    for (;;) {
      const sends = await this.repo.sendsToEnqueue(afterId, BATCH);
      const jobs = sends.map(toJob);
      const now = Date.now();
      const due = jobs.filter((job) => job.dueMs <= now);
      if (!(await this.producer.enqueueMany(jobs.filter((job) => job.dueMs > now)))) return;
      // Marked first: a process that stops before delivering leaves them to the sweep.
      await this.repo.markQueued(jobs);
      this.lanes.offer(due);
      if (sends.length < BATCH) return;
      afterId = sends[sends.length - 1].id;
    }
  }

  private async requeueOverdue(): Promise<void> {
    const graceMs = this.config.publication.queueCallTimeoutMs + 1_000;
    for (const send of await this.repo.overdueSends(graceMs, BATCH)) {
      if (this.lanes.holds(send.id)) continue;
      if (await this.producer.hasLiveJob(send.id, send.attempts)) continue;
      if (await this.producer.enqueue(toJob(send)))
        this.logger.log(`Webhook send ${send.id}: its lost job was enqueued again`);
    }
  }

  /** Reopened when it drops. */
  private async listen(): Promise<void> {
    if (this.closing) return;
    const client = new Client({ connectionString: this.config.databaseUrl });
    this.listener = client;
    const retry = () => {
      if (this.listener !== client || this.closing) return;
      this.listener = undefined;
      client.end().catch(() => undefined);
      setTimeout(() => void this.listen(), RELISTEN_DELAY_MS).unref();
    };
    client.on('error', (error) => {
      this.logger.warn(`Webhook listener: ${error.message}`);
      retry();
    });
    client.on('end', retry);
    client.on('notification', () => void this.dispatch());
    try {
      await client.connect();
      await client.query(`LISTEN ${SENDS_CHANNEL}`);
      void this.dispatch(); // what was committed while nobody listened
    } catch (error) {
      this.logger.warn(`Webhook listener could not start: ${(error as Error).message}`);
      retry();
    }
  }
}

function toJob(send: SendToEnqueue): SendJob {
  return { id: send.id, attempt: send.attempts, webhookId: send.webhook_id, dueMs: send.due_ms };
}

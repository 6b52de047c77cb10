import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { startMetricsServer } from '../../src/operations/monitoring/metrics-server';
import { Metrics } from '../../src/infrastructure/metrics/metrics.service';
import { Factory, SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { metricSample as sample } from '../support/expectations';
import { waitForPostStatus } from '../support/publication';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { startTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { waitFor } from '../support/waits';

const TOKEN = 'metrics-token-for-tests-0123456789';

/** Distinct label sets of one series. */
function labelSets(text: string, name: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`))
    .map((line) => /\{(.*)\}/.exec(line)?.[1] ?? '');
}

/** Prometheus metrics, their labels, and who may read them (docs/api-rules.md#operations). */
describe('GET /metrics', () => {
  it('does not exist without METRICS_TOKEN: 404 with the usual error body', async () => {
    const t = await startTestApp();
    try {
      const res = await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(404);
      expect(res.body.error.code).toBe('not_found');
    } finally {
      await t.close();
    }
  });

  describe('with METRICS_TOKEN set', () => {
    let world: TelegramWorld;
    let t: TestApp;
    let telegram: TelegramStandIn;
    let make: Factory;
    let owner: SignedInUser;
    let project: TestProject;
    let key: string;
    let channel: TestChannel;

    beforeAll(async () => {
      world = await startWithTelegram({
        METRICS_TOKEN: TOKEN,
        RATE_LIMIT_OTHER: '3',
        RATE_LIMIT_CREATE_POST: '1000',
        RATE_LIMIT_PUBLISH: '1000',
        // The webhook receiver listens on 127.0.0.1; a refused delivery is retried at once.
        MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.1/32',
        WEBHOOK_RETRY_DELAYS_MS: '50',
      });
      ({ t, telegram, make } = world);
      ({ owner, project, key } = await make.owner('Metrics'));
      const account = await make.telegramAccount(owner, project);
      channel = await make.channel(owner, account.id);
    });

    afterAll(() => world?.close());

    const scrape = async () =>
      (await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text;

    it.each([
      ['no Authorization', undefined],
      ['a wrong token', `Bearer ${TOKEN}x`],
      ['an API key', 'Bearer hrld_live_abc.def'],
      ['the token without Bearer', TOKEN],
    ])('answers 401 to %s', async (_name, header) => {
      const call = t.http.get('/metrics');
      const res = await (header ? call.set('Authorization', header) : call).expect(401);
      expect(res.body.error.code).toBe('unauthorized');
      expect(res.text).not.toContain('herald_');
    });

    it("holds Node's process metrics and the queue gauge of every registered queue", async () => {
      const res = await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(res.text).toMatch(/^process_cpu_user_seconds_total \d/m);
      expect(res.text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
      expect(res.text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
      expect(res.text).toContain('# TYPE herald_queue_jobs gauge');
      // Found, not listed: the publication queue and the webhooks queue added after the metrics.
      for (const queue of ['publication', 'webhooks'])
        for (const state of ['waiting', 'active', 'delayed', 'completed', 'failed', 'paused'])
          expect(sample(res.text, 'herald_queue_jobs', { queue, state })).toBe(0);
    });

    it('reads the queue gauge from Bull when scraped', async () => {
      const queue = t.app.get<Queue>(getQueueToken('publication'));
      await queue.pause(true); // this instance stops taking jobs, so the new one stays delayed
      try {
        await queue.add({ postId: 0, attempt: 0 }, { jobId: 'metrics-probe', delay: 600_000 });
        expect(
          sample(await scrape(), 'herald_queue_jobs', { queue: 'publication', state: 'delayed' }),
        ).toBe(1);
        await (await queue.getJob('metrics-probe'))?.remove();
        expect(
          sample(await scrape(), 'herald_queue_jobs', { queue: 'publication', state: 'delayed' }),
        ).toBe(0);
      } finally {
        await queue.resume(true);
      }
    });

    it("times a request under its route's template, with method and status", async () => {
      const route = '/api/public/v1/projects/:projectId/posts';
      const labels = { method: 'GET', route, status: '200' };
      const before =
        sample(await scrape(), 'herald_http_request_duration_seconds_count', labels) ?? 0;
      await t.http
        .get(`/api/public/v1/projects/${project.id}/posts`)
        .set('Authorization', `Bearer ${key}`)
        .expect(200);
      const after = await scrape();
      expect(sample(after, 'herald_http_request_duration_seconds_count', labels)).toBe(before + 1);
      expect(
        sample(after, 'herald_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' }),
      ).toBe(before + 1);
      expect(after).not.toContain(`/api/public/v1/projects/${project.id}/posts"`);
    });

    it('keeps labels bounded: 1,000 distinct post ids and 200 unknown paths add a handful of series', async () => {
      const before = labelSets(await scrape(), 'herald_http_request_duration_seconds_count');
      const session = t.http;
      for (let batch = 0; batch < 20; batch++) {
        await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            session
              .delete(`/api/posts/${100_000 + batch * 50 + i}`)
              .set('Authorization', owner.auth)
              .expect(404),
          ),
        );
      }
      for (let batch = 0; batch < 4; batch++) {
        await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            session.get(`/no/such/${batch}/${i}?x=${i}`).expect(404),
          ),
        );
      }
      const after = await scrape();
      const added = labelSets(after, 'herald_http_request_duration_seconds_count').filter(
        (set) => !before.includes(set),
      );
      // At most: this route's 404, the unmatched 404, the scrape itself.
      expect(added.length).toBeLessThanOrEqual(3);
      expect(
        sample(after, 'herald_http_request_duration_seconds_count', {
          method: 'DELETE',
          route: '/api/posts/:id',
          status: '404',
        }),
      ).toBe(1000);
      expect(
        sample(after, 'herald_http_request_duration_seconds_count', {
          method: 'GET',
          route: 'unmatched',
          status: '404',
        }),
      ).toBeGreaterThanOrEqual(200);
      expect(after).not.toMatch(/route="[^"]*\d{6}/);
      expect(after).not.toContain('/no/such');
    });

    it('counts a publication by platform and outcome, and times the Telegram call', async () => {
      const published = { platform: 'telegram', outcome: 'published', error_code: '' };
      const rejected = { platform: 'telegram', outcome: 'failed', error_code: 'telegram_rejected' };
      const sendOk = { method: 'sendMessage', outcome: 'ok' };
      const text = await scrape();
      const before = {
        published: sample(text, 'herald_publication_targets_total', published) ?? 0,
        rejected: sample(text, 'herald_publication_targets_total', rejected) ?? 0,
        sends: sample(text, 'herald_telegram_request_duration_seconds_count', sendOk) ?? 0,
      };
      const publish = async (body: string) => {
        const res = await t.http
          .post(`/api/public/v1/projects/${project.id}/posts`)
          .set('Authorization', `Bearer ${key}`)
          .send({ text: body, targets: [{ channel_ref: channel.id }], publish_now: true })
          .expect(201);
        return waitForPostStatus(t, res.body.id as number);
      };
      expect((await publish('Counted')).status).toBe('published');
      telegram.script('sendMessage', { status: 400, description: 'Bad Request: chat not found' });
      expect((await publish('Refused')).status).toBe('failed');

      const after = await scrape();
      expect(sample(after, 'herald_publication_targets_total', published)).toBe(
        before.published + 1,
      );
      expect(sample(after, 'herald_publication_targets_total', rejected)).toBe(before.rejected + 1);
      expect(sample(after, 'herald_telegram_request_duration_seconds_count', sendOk)).toBe(
        before.sends + 1,
      );
      expect(
        sample(after, 'herald_telegram_request_duration_seconds_count', {
          method: 'sendMessage',
          outcome: 'api_error',
        }),
      ).toBeGreaterThanOrEqual(1);
    });

    it('counts refusals by rate limit category', async () => {
      const list = () =>
        t.http.get('/api/public/v1/projects').set('Authorization', `Bearer ${key}`);
      let status = 200;
      for (let i = 0; i < 10 && status !== 429; i++) status = (await list()).status;
      expect(status).toBe(429);
      await list().expect(429);
      expect(sample(await scrape(), 'herald_rate_limited_total', { category: 'other' })).toBe(2);
    });

    it('counts webhook deliveries by outcome: a refused attempt, then its retry delivered', async () => {
      const receiver = await new WebhookReceiver().start();
      try {
        const count = async (outcome: string) =>
          sample(await scrape(), 'herald_webhook_deliveries_total', { outcome }) ?? 0;
        const before = { retrying: await count('retrying'), delivered: await count('delivered') };
        // A key of its own: the rate limit test above spent this key's requests.
        const hookKey = await make.apiKey(owner);
        const hook = await t.http
          .post(`/api/public/v1/projects/${project.id}/webhooks`)
          .set('Authorization', `Bearer ${hookKey}`)
          .send({ url: receiver.url('/metrics-hook'), events: ['post.published'] })
          .expect(201);
        receiver.expect('/metrics-hook', hook.body.secret as string);
        receiver.script('/metrics-hook', { status: 500 });
        const post = await t.http
          .post(`/api/public/v1/projects/${project.id}/posts`)
          .set('Authorization', `Bearer ${hookKey}`)
          .send({ text: 'Hooked', targets: [{ channel_ref: channel.id }], publish_now: true })
          .expect(201);
        expect((await waitForPostStatus(t, post.body.id as number)).status).toBe('published');
        await waitFor(async () => (await count('delivered')) === before.delivered + 1);
        expect(receiver.of('/metrics-hook')).toHaveLength(2);
        expect(await count('retrying')).toBe(before.retrying + 1);
        expect(receiver.rejected).toEqual([]);
      } finally {
        await receiver.stop();
      }
    });

    it("serves a worker's metrics on its own port, with the same token rules", async () => {
      const { server, port } = await startMetricsServer(t.app.get(Metrics), {
        ...t.config,
        ops: { ...t.config.ops, metricsToken: TOKEN, metricsPort: 0 },
      });
      try {
        const base = `http://127.0.0.1:${port}`;
        expect((await fetch(`${base}/metrics`)).status).toBe(401);
        expect(
          (await fetch(`${base}/other`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
        ).toBe(404);
        const res = await fetch(`${base}/metrics`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        expect(res.status).toBe(200);
        expect(await res.text()).toContain('herald_publication_targets_total');
      } finally {
        server.close();
      }
    });
  });
});

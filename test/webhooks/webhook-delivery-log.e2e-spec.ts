import { Factory, TestProject } from '../support/factories/factories';
import { startTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { waitFor } from '../support/waits';

/** The delivery log pages like the post list: every attempt is reachable, not only the newest. */
describe('Webhook delivery log pages', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let project: TestProject;
  let key: string;
  let seq = 0;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({
      MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.1/32',
      WEBHOOK_SWEEP_INTERVAL_MS: '300',
      RATE_LIMIT_OTHER: '100000',
    });
    ({ project, key } = await new Factory(t).owner());
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  const api = (path: string) => `/api/public/v1/projects/${project.id}/webhooks${path}`;

  async function endpoint(): Promise<number> {
    const path = `/log-${++seq}`;
    const res = await t.http
      .post(api(''))
      .set('Authorization', `Bearer ${key}`)
      .send({ url: receiver.url(path), events: ['post.published'] })
      .expect(201);
    receiver.expect(path, res.body.secret as string);
    return res.body.id as number;
  }

  /** Sends `count` test events to the endpoint and waits until each attempt is in its log. */
  async function attempts(webhookId: number, count: number, logged: number): Promise<void> {
    for (let i = 0; i < count; i++)
      await t.http
        .post(api(`/${webhookId}/test`))
        .set('Authorization', `Bearer ${key}`)
        .expect(202);
    await waitFor(async () => {
      const { rows } = await t.db.query(
        'SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1',
        [webhookId],
      );
      return rows[0].n === logged;
    }, 15_000);
  }

  const page = (webhookId: number, query: string) =>
    t.http.get(api(`/${webhookId}/deliveries${query}`)).set('Authorization', `Bearer ${key}`);

  it('follows next_cursor through every attempt once, newest first, while attempts are added', async () => {
    const webhookId = await endpoint();
    await attempts(webhookId, 7, 7);
    const { rows } = await t.db.query<{ id: number }>(
      'SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id DESC',
      [webhookId],
    );
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await page(webhookId, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
      const body = res.body as {
        items: { id: number }[];
        count: number;
        next_cursor: string | null;
      };
      expect(body.count).toBe(body.items.length);
      seen.push(...body.items.map((item) => item.id));
      cursor = body.next_cursor;
      // A newer attempt arrives meanwhile: it heads the log and never shows up further down.
      if (pages++ === 0) await attempts(webhookId, 1, 8);
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(rows.map((r) => r.id));
  });

  it('refuses a cursor of another endpoint, or one that is not ours, with 400 validation_failed', async () => {
    const first = await endpoint();
    const second = await endpoint();
    await attempts(first, 2, 2);
    const res = await page(first, '?limit=1').expect(200);
    const cursor = res.body.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    for (const [webhookId, value] of [
      [second, cursor],
      [first, 'not-a-cursor'],
      [first, `${cursor}x`],
    ] as const) {
      const refused = await page(webhookId, `?cursor=${encodeURIComponent(value)}`).expect(400);
      expect(refused.body.error).toMatchObject({ code: 'validation_failed' });
    }
  });
});

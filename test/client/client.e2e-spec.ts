import {
  createServer,
  IncomingHttpHeaders,
  IncomingMessage,
  Server,
  ServerResponse,
} from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Herald,
  HeraldError,
  verifyWebhook,
  WebhookVerificationError,
} from '../../clients/typescript/src';
import { MICROS, TELEGRAM_CHANNEL_LIMITS } from '../support/expectations';
import { SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { fixture } from '../support/factories/media-helpers';
import { RemoteFileServer } from '../support/remote-file-server';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { waitFor } from '../support/waits';

const CLIENT = join(__dirname, '..', '..', 'clients', 'typescript');

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A plain HTTP server that records each request as it came, raw body included. */
async function listen(
  answer: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ path: req.url ?? '/', headers: req.headers, body });
      answer(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, received };
}

const close = (server?: Server) =>
  new Promise<void>((resolve) => {
    server?.closeAllConnections();
    return server ? server.close(() => resolve()) : resolve();
  });

/**
 * The TypeScript client (clients/typescript) against a Herald listening on a local port: every
 * method, dates read as UTC, typed errors, retries against a stand-in that refuses first, the
 * pager while posts are created, and webhook deliveries verified (and tampered ones refused).
 */
describe('@herald/client against a running Herald', () => {
  let world: TelegramWorld;
  let baseUrl: string;
  let owner: SignedInUser;
  let project: TestProject;
  let channel: TestChannel;
  let herald: Herald;
  let files: RemoteFileServer;
  let hooks: Awaited<ReturnType<typeof listen>>;
  let testKey: string;

  beforeAll(async () => {
    files = await new RemoteFileServer('127.0.0.1').start();
    files.route('/sunset.png', (_req, res) =>
      res.writeHead(200, { 'content-type': 'image/png' }).end(fixture('sample.png')),
    );
    hooks = await listen((_req, res) => res.writeHead(204).end());
    world = await startWithTelegram({
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
      RATE_LIMIT_CREATE_POST: '10000',
      RATE_LIMIT_PUBLISH: '10000',
      RATE_LIMIT_OTHER: '10000',
      RATE_LIMIT_UPLOAD: '10000',
      TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '100000',
      PUBLICATION_RETRY_BASE_MS: '50',
    });
    await world.t.app.listen(0, '127.0.0.1');
    const { port } = world.t.app.getHttpServer().address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}`;
    ({ owner, project } = await world.make.owner('Client'));
    const account = await world.make.telegramAccount(owner, project);
    channel = await world.make.channel(owner, account.id);
    testKey = await world.make.apiKey(owner, { mode: 'test' });
    herald = new Herald({ apiKey: testKey, baseUrl });
  });

  afterAll(async () => {
    await world?.close();
    await files?.stop();
    await close(hooks?.server);
  });

  /** The same call without the client: the text Herald wrote. */
  const raw = async (path: string) =>
    (await (
      await fetch(`${baseUrl}/api/public/v1${path}`, {
        headers: { authorization: `Bearer ${testKey}` },
      })
    ).json()) as Record<string, unknown>;

  it('lists projects and channels, with date-times as Dates read as UTC', async () => {
    const projects = await herald.projects.list();
    expect(projects).toEqual([
      {
        id: project.id,
        name: 'Client',
        timezone: 'Europe/Moscow',
        created_at: expect.any(Date),
        is_owner: true,
      },
    ]);
    const { rows } = await world.t.db.query(
      'SELECT floor(extract(epoch FROM created_at) * 1000)::float8 AS ms FROM projects WHERE id = $1',
      [project.id],
    );
    // The instant the database holds (a UTC wall clock), to the millisecond, whatever the
    // machine's time zone.
    expect(projects[0].created_at.getTime()).toBe(rows[0].ms);
    expect(await herald.channels.list(project.id)).toEqual([
      {
        id: channel.id,
        platform: 'telegram',
        account_id: channel.account_id,
        channel_id: channel.channel_id,
        title: channel.title,
        username: channel.username,
        needs_reconnect: false,
        url: `https://t.me/${channel.username}`,
        limits: TELEGRAM_CHANNEL_LIMITS,
        missing_since: null,
        reconnect_by: null,
      },
    ]);
  });

  it('uploads media as bytes and by link, creates, checks, reads, changes, publishes and deletes posts', async () => {
    const uploaded = await herald.media.upload(project.id, {
      data: fixture('sample.png'),
      filename: 'sample.png',
      alt_text: 'A red square',
    });
    expect(uploaded).toMatchObject({
      type: 'image',
      mime_type: 'image/png',
      filename: 'sample.png',
      alt_text: 'A red square',
    });
    expect(uploaded.created_at).toBeInstanceOf(Date);
    const linked = await herald.media.fromUrl(project.id, { url: files.url('/sunset.png') });
    expect(linked).toMatchObject({ type: 'image', filename: 'sunset.png', alt_text: null });
    const described = await herald.media.update(project.id, linked.id, { alt_text: 'A sunset' });
    expect(described).toEqual({ ...linked, alt_text: 'A sunset' });

    const body = {
      text: 'Hello from the client',
      media_ids: [uploaded.id, linked.id],
      targets: [{ channel_ref: channel.id }],
    };
    expect(await herald.posts.validate(project.id, body)).toEqual({
      valid: true,
      errors: [],
      targets: [{ channel_ref: channel.id, platform: 'telegram', messages: 1 }],
    });
    const created = await herald.posts.create(project.id, body);
    expect(created).toEqual({
      id: expect.any(Number),
      status: 'draft',
      project_id: project.id,
      text: 'Hello from the client',
      scheduled_at: null,
      created_at: expect.any(Date),
      test: true,
    });

    // A Date goes out as ISO 8601 in UTC and comes back as the same instant.
    const at = new Date(Date.now() + 3_600_000);
    at.setUTCMilliseconds(0);
    const changed = await herald.posts.update(project.id, created.id, {
      text: 'Changed',
      scheduled_at: at,
    });
    expect({ status: changed.status, text: changed.text, at: changed.scheduled_at }).toEqual({
      status: 'scheduled',
      text: 'Changed',
      at,
    });
    const written = await raw(`/projects/${project.id}/posts/${created.id}`);
    expect(written.scheduled_at).toMatch(MICROS);
    expect(new Date(`${written.scheduled_at as string}Z`)).toEqual(at);

    // Published early, to the post's own targets.
    expect(await herald.posts.publish(project.id, created.id)).toEqual({
      id: created.id,
      status: 'publishing',
      test: true,
    });
    await waitFor(
      async () => (await herald.posts.get(project.id, created.id)).status === 'published',
      15_000,
    );
    const post = await herald.posts.get(project.id, created.id);
    expect(post.media.map((m) => [m.id, m.alt_text])).toEqual([
      [uploaded.id, 'A red square'],
      [linked.id, 'A sunset'],
    ]);
    const messages = post.targets![0].message_ids.map((id) => ({
      id: String(id),
      url: `https://example.invalid/telegram/${channel.channel_id}/${id}`,
    }));
    expect(post.targets).toEqual([
      {
        channel_ref: channel.id,
        channel_id: channel.channel_id,
        status: 'published',
        error: null,
        message_ids: [expect.any(Number), expect.any(Number)],
        url: messages[0].url,
        messages,
        published_at: expect.any(Date),
      },
    ]);

    const draft = await herald.posts.create(project.id, { text: 'Goodbye' });
    await herald.posts.delete(project.id, draft.id);
    await expect(herald.posts.get(project.id, draft.id)).rejects.toMatchObject({
      name: 'HeraldError',
      status: 404,
      code: 'post_not_found',
    });
    expect(await herald.usage()).toEqual({
      posts_this_month: expect.any(Number),
      projects_count: 1,
      api_keys_count: expect.any(Number),
    });
  }, 30_000);

  it('throws HeraldError with status, code, message and details', async () => {
    const refused = await herald.posts
      .create(project.id, { text: 'x', colour: 'red' } as never)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HeraldError);
    expect({ ...(refused as HeraldError), message: (refused as HeraldError).message }).toEqual({
      name: 'HeraldError',
      status: 400,
      code: 'validation_failed',
      message: 'colour: is not allowed',
      details: [{ field: 'colour', message: 'is not allowed' }],
      retryAfter: null,
    });
    const stranger = new Herald({ apiKey: 'hrld_test_nope', baseUrl });
    await expect(stranger.projects.list()).rejects.toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
    // Nothing answers: a network error, after the retries.
    const nowhere = new Herald({
      apiKey: 'hrld_test_nope',
      baseUrl: 'http://127.0.0.1:9',
      backoffMs: 1,
    });
    await expect(nowhere.projects.list()).rejects.toMatchObject({
      status: 0,
      code: 'network_error',
    });
  });

  it('follows next_cursor across pages while posts are created, each post once', async () => {
    const pager = await world.make.owner('Pages');
    const key = await world.make.apiKey(pager.owner, { mode: 'test' });
    const client = new Herald({ apiKey: key, baseUrl });
    const made: number[] = [];
    for (let i = 0; i < 7; i++)
      made.push((await client.posts.create(pager.project.id, { text: `Post ${i}` })).id);
    const seen: number[] = [];
    for await (const post of client.posts.list(pager.project.id, { pageSize: 2 })) {
      seen.push(post.id);
      // A post created mid-walk is newer than the cursor: it never shows up, nothing repeats.
      if (seen.length % 2 === 0) await client.posts.create(pager.project.id, { text: 'Later' });
    }
    expect(seen).toEqual([...made].reverse());
    const drafts = await client.posts
      .list(pager.project.id, { status: 'draft', pageSize: 100 })
      .all();
    expect(drafts).toHaveLength(7 + 3);
  });

  it('manages webhooks; a delivery verifies, a tampered or old one is refused', async () => {
    const hook = await herald.webhooks.create(project.id, {
      url: `${hooks.url}/herald`,
      events: ['post.published'],
    });
    expect(hook).toEqual({
      id: expect.any(Number),
      url: `${hooks.url}/herald`,
      events: ['post.published'],
      enabled: true,
      disabled_reason: null,
      test: true,
      created_at: expect.any(Date),
      secret: expect.stringMatching(/^whsec_/),
    });
    expect((await herald.webhooks.list(project.id)).map((w) => w.id)).toEqual([hook.id]);

    const { event_id } = await herald.webhooks.test(project.id, hook.id);
    await waitFor(() => hooks.received.some((r) => r.headers['webhook-id'] === event_id));
    const delivery = hooks.received.find((r) => r.headers['webhook-id'] === event_id)!;
    const event = verifyWebhook(hook.secret, delivery.body, delivery.headers);
    expect(event).toMatchObject({
      type: 'webhook.test',
      data: { project_id: project.id, webhook_id: hook.id },
    });

    const tampered = delivery.body.replace(
      `"webhook_id":${hook.id}`,
      `"webhook_id":${hook.id + 1}`,
    );
    expect(tampered).not.toBe(delivery.body);
    expect(() => verifyWebhook(hook.secret, tampered, delivery.headers)).toThrow(
      WebhookVerificationError,
    );
    const later = new Date(Number(delivery.headers['webhook-timestamp']) * 1000 + 10 * 60_000);
    expect(() => verifyWebhook(hook.secret, delivery.body, delivery.headers, later)).toThrow(
      'The webhook-timestamp is too far from now',
    );
    const other = await herald.webhooks.create(project.id, {
      url: `${hooks.url}/other`,
      events: ['post.failed'],
    });
    expect(() => verifyWebhook(other.secret, delivery.body, delivery.headers)).toThrow(
      'No signature matches the body',
    );

    await waitFor(
      async () => (await herald.webhooks.deliveries(project.id, hook.id).all()).length > 0,
    );
    expect(await herald.webhooks.deliveries(project.id, hook.id, { pageSize: 1 }).all()).toEqual([
      {
        id: expect.any(Number),
        event_id,
        event_type: 'webhook.test',
        attempt: 1,
        status_code: 204,
        error: null,
        duration_ms: expect.any(Number),
        created_at: expect.any(Date),
      },
    ]);
    await herald.webhooks.delete(project.id, hook.id);
    await herald.webhooks.delete(project.id, other.id);
    expect(await herald.webhooks.list(project.id)).toEqual([]);
  });

  describe('retries', () => {
    /** Answers each request with the next scripted status; past the script, forwards to Herald. */
    async function standIn(script: { status: number; retryAfter?: string }[]) {
      const steps = [...script];
      return listen((req, res, body) => {
        const step = steps.shift();
        if (step) {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (step.retryAfter !== undefined) headers['retry-after'] = step.retryAfter;
          const code = step.status === 429 ? 'rate_limit_exceeded' : 'service_unavailable';
          return res
            .writeHead(step.status, headers)
            .end(JSON.stringify({ error: { code, message: 'Not now' } }));
        }
        const forwarded: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers))
          if (typeof value === 'string' && name !== 'host' && name !== 'content-length')
            forwarded[name] = value;
        void fetch(`${baseUrl}${req.url}`, {
          method: req.method,
          headers: forwarded,
          body: body || undefined,
        }).then(async (answer) =>
          res
            .writeHead(answer.status, { 'content-type': 'application/json' })
            .end(await answer.text()),
        );
      });
    }

    it('retries a create after 429 and 503 with the same Idempotency-Key, and the post is made once', async () => {
      const stand = await standIn([
        { status: 429, retryAfter: '1' },
        { status: 503, retryAfter: '0' },
        { status: 502 },
      ]);
      try {
        const client = new Herald({
          apiKey: testKey,
          baseUrl: stand.url,
          backoffMs: 1,
        });
        const created = await client.posts.create(project.id, { text: 'Retried' });
        const keys = stand.received.map((r) => r.headers['idempotency-key']);
        expect(keys).toHaveLength(4);
        expect(new Set(keys).size).toBe(1);
        expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
        const { rows } = await world.t.db.query(
          `SELECT id FROM posts WHERE project_id = $1 AND text = 'Retried'`,
          [project.id],
        );
        expect(rows).toEqual([{ id: created.id }]);
        // The key given by the caller is the one sent.
        await client.posts.create(project.id, { text: 'Keyed' }, { idempotencyKey: 'my-key-1' });
        expect(stand.received.at(-1)?.headers['idempotency-key']).toBe('my-key-1');
      } finally {
        await close(stand.server);
      }
    });

    it('retries a read after a network error; stops after its retries with the last error', async () => {
      let drops = 1;
      const flaky = await listen((_req, res) => {
        if (drops-- > 0) return res.socket?.destroy();
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[],"count":0}');
      });
      try {
        const client = new Herald({ apiKey: 'k', baseUrl: flaky.url, backoffMs: 1 });
        expect(await client.projects.list()).toEqual([]);
        expect(flaky.received).toHaveLength(2);
      } finally {
        await close(flaky.server);
      }
      const busy = await standIn(Array(5).fill({ status: 429, retryAfter: '0' }));
      try {
        const client = new Herald({ apiKey: 'k', baseUrl: busy.url, retries: 2 });
        await expect(client.usage()).rejects.toMatchObject({
          status: 429,
          code: 'rate_limit_exceeded',
          retryAfter: 0,
        });
        expect(busy.received).toHaveLength(3);
      } finally {
        await close(busy.server);
      }
    });

    it('never retries a refusal that is not temporary', async () => {
      const stand = await listen((_req, res) =>
        res
          .writeHead(409, { 'content-type': 'application/json' })
          .end('{"error":{"code":"invalid_state","message":"No"}}'),
      );
      try {
        const client = new Herald({ apiKey: 'k', baseUrl: stand.url, backoffMs: 1 });
        await expect(client.posts.publish(1, 2)).rejects.toMatchObject({ code: 'invalid_state' });
        expect(stand.received).toHaveLength(1);
      } finally {
        await close(stand.server);
      }
    });
  });

  it('has the types of the document Herald serves (npm run build writes them again)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-client-'));
    try {
      const document = await (await fetch(`${baseUrl}/api/public/v1/openapi.json`)).text();
      writeFileSync(join(dir, 'public.json'), document);
      execFileSync(process.execPath, [
        join(CLIENT, 'scripts', 'generate-types.js'),
        join(dir, 'public.json'),
        join(dir, 'api.ts'),
      ]);
      expect(readFileSync(join(dir, 'api.ts'), 'utf8')).toBe(
        readFileSync(join(CLIENT, 'src', 'generated', 'api.ts'), 'utf8'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

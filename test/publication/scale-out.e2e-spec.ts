import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { dropTestDatabase } from '../support/databases';
import { fixture } from '../support/factories/media-helpers';
import { S3TestServer } from '../support/s3-server';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { createMigratedDatabase, TEST_APP_SECRET, TEST_REDIS_URL } from '../support/test-app';
import { freePort } from '../support/free-port';
import { heraldReady, HeraldProcess, spawnHerald, stopHerald } from '../support/herald-process';
import { waitFor } from '../support/waits';

const ROOT = join(__dirname, '..', '..');
const METRICS_TOKEN = 'scale-out-metrics-token';
const run = promisify(execFile);

/** Creates allowed per key in one window: the burst asks for more, and exactly this many pass. */
const CREATE_LIMIT = 300;
const BURST = 340;
/** The first sends seen before one worker is killed. */
const KILL_AFTER_SENDS = 60;

/**
 * Herald as it runs at scale (docs/api-rules.md#operations), as real processes built by `npm run
 * build`: two API processes and two workers on one PostgreSQL, one Redis and an S3-protocol bucket.
 * Rate limits stay exact across both APIs; 300 posts with a photo each are delivered once each; a
 * worker killed with SIGKILL mid-run loses nothing and sends nothing twice.
 */
describe('Scale-out: 2 API and 2 worker processes', () => {
  let database: { name: string; url: string };
  let s3: S3TestServer;
  let telegram: TelegramStandIn;
  let db: Client;
  const processes: HeraldProcess[] = [];
  let env: Record<string, string>;

  async function start(role: 'api' | 'worker'): Promise<HeraldProcess> {
    const herald = spawnHerald(role, await freePort(), env, { built: true });
    processes.push(herald);
    return herald;
  }

  // Generous: on a busy machine four Node processes boot slowly, side by side with other suites.
  const ready = (herald: HeraldProcess) => heraldReady(herald, 180_000, METRICS_TOKEN);

  beforeAll(async () => {
    await run('npm', ['run', 'build'], { cwd: ROOT, timeout: 240_000 });
    database = await createMigratedDatabase();
    s3 = await new S3TestServer().start();
    telegram = await new TelegramStandIn().start();
    // Telegram takes a while to answer: sends are in flight when the worker dies.
    telegram.answerAfter(150, 100);
    db = new Client({ connectionString: database.url });
    await db.connect();
    env = {
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: `herald-scale-${process.pid}-${Date.now()}`,
      APP_SECRET: TEST_APP_SECRET,
      PUBLIC_BASE_URL: 'http://herald.test',
      TELEGRAM_API_BASE_URL: telegram.url,
      LOG_LEVEL: 'warn',
      METRICS_TOKEN,
      ...s3.env(),
      RATE_LIMIT_CREATE_POST: String(CREATE_LIMIT),
      RATE_LIMIT_UPLOAD: '100',
      RATE_LIMIT_OTHER: '1000',
      // An hour's window: a minute boundary in the middle of the burst would start a fresh budget.
      RATE_LIMIT_WINDOW_MS: '3600000',
      TELEGRAM_BOT_MESSAGES_PER_SECOND: '100000',
      TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '100000',
      PUBLICATION_CONCURRENCY: '50',
      // A killed worker's jobs are taken again within seconds, not the default minute.
      PUBLICATION_LOCK_MS: '4000',
      PUBLICATION_SWEEP_INTERVAL_MS: '2000',
    };
    const all = [
      await start('api'),
      await start('api'),
      await start('worker'),
      await start('worker'),
    ];
    await Promise.all(all.map(ready));
  }, 420_000);

  afterAll(async () => {
    for (const herald of processes) await stopHerald(herald);
    await db?.end();
    await telegram?.stop();
    await s3?.stop();
    if (database) await dropTestDatabase(database.name);
  }, 60_000);

  async function call(
    base: string,
    method: string,
    path: string,
    auth: string | undefined,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return {
      status: res.status,
      body: (await res.json()) as Record<string, unknown>,
      headers: res.headers,
    };
  }

  it('keeps the rate limit exact across both APIs, and delivers 300 posts once each through a worker crash', async () => {
    const [api1, api2] = processes.filter((p) => p.role === 'api');
    const workers = processes.filter((p) => p.role === 'worker');

    // An administrator with a project, a Telegram channel and an API key, through both APIs.
    const email = `scale${process.pid}@example.com`;
    const reg = await call(api1.base, 'POST', '/api/auth/register', undefined, {
      email,
      password: 'scale-out-password',
      name: 'Scale',
    });
    expect(reg.status).toBe(201);
    await run(process.execPath, ['dist/src/operations/cli/main.js', 'grant-admin', email], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    const session = `Bearer ${reg.body.token as string}`;
    const project = await call(api2.base, 'POST', '/api/projects', session, {
      name: 'Scale',
      timezone: 'UTC',
    });
    const account = await call(api1.base, 'POST', '/api/accounts', session, {
      project_id: project.body.id,
      platform: 'telegram',
      bot_token: telegram.addBot(),
    });
    const chats = [-1009000000001, -1009000000002, -1009000000003];
    const channels: string[] = [];
    for (const [i, chat] of chats.entries()) {
      telegram.addChat({ id: chat, type: 'channel', title: `Scale ${i}` });
      const channel = await call(
        [api1, api2][i % 2].base,
        'POST',
        `/api/accounts/${account.body.id as number}/channels`,
        session,
        { chat: String(chat) },
      );
      expect(channel.status).toBe(201);
      channels.push(channel.body.id as string);
    }
    const key = await call(api2.base, 'POST', '/api/api-keys', session, { name: 'scale' });
    const auth = `Bearer ${key.body.key as string}`;
    const projectPath = `/api/public/v1/projects/${project.body.id as number}`;

    // The photo goes to the bucket through one API; the posts reference it.
    const form = new FormData();
    form.append('files', new Blob([fixture('sample.png')], { type: 'image/png' }), 'scale.png');
    const uploaded = await fetch(`${api1.base}${projectPath}/media`, {
      method: 'POST',
      headers: { authorization: auth },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const media = ((await uploaded.json()) as { items: { id: number; storage_path: string }[] })
      .items[0];
    expect(await s3.keys()).toEqual([media.storage_path]);

    // The burst: more creates than the limit, alternating between the APIs, many at once.
    let killed = false;
    const killer = waitFor(async () => {
      if (telegram.callsOf('sendPhoto').length < KILL_AFTER_SENDS) return false;
      workers[0].child.kill('SIGKILL');
      killed = true;
      return true;
    }, 90_000);
    const answers: { status: number; remaining: number | null; postId: number | null }[] = [];
    for (let start = 0; start < BURST; start += 40) {
      const batch = Array.from({ length: Math.min(40, BURST - start) }, (_, j) => start + j);
      answers.push(
        ...(await Promise.all(
          batch.map(async (i) => {
            const res = await call([api1, api2][i % 2].base, 'POST', `${projectPath}/posts`, auth, {
              text: `scale-post-${i}`,
              media_ids: [media.id],
              targets: [{ channel_ref: channels[i % channels.length] }],
              publish_now: true,
            });
            return {
              status: res.status,
              remaining: Number(res.headers.get('x-ratelimit-remaining')),
              postId: res.status === 201 ? (res.body.id as number) : null,
            };
          }),
        )),
      );
    }
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(CREATE_LIMIT);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(BURST - CREATE_LIMIT);
    // Every accepted create saw its own remaining count: one shared counter, no double spend.
    expect(new Set(created.map((a) => a.remaining)).size).toBe(CREATE_LIMIT);

    await killer;
    expect(killed).toBe(true);
    await workers[0].exit;

    // Everything ends: nothing is lost with the dead worker.
    const ids = created.map((a) => a.postId as number);
    await waitFor(async () => {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM posts WHERE id = ANY($1) AND status IN ('published', 'failed')`,
        [ids],
      );
      return rows[0].n === ids.length;
    }, 120_000).catch(async () => {
      const { rows } = await db.query(
        `SELECT status, count(*)::int FROM posts WHERE id = ANY($1) GROUP BY status`,
        [ids],
      );
      throw new Error(`posts not finished: ${JSON.stringify(rows)}\n${workers[1].logs}`);
    });

    const { rows: targets } = await db.query<{
      text: string;
      status: string;
      error_code: string | null;
      message_ids: number[];
    }>(
      `SELECT p.text, t.status, t.error_code, t.message_ids
         FROM post_targets t JOIN posts p ON p.id = t.post_id WHERE p.id = ANY($1)`,
      [ids],
    );
    expect(targets).toHaveLength(CREATE_LIMIT);
    const sendsOf = new Map<string, number[]>();
    for (const send of telegram.callsOf('sendPhoto')) {
      const caption = String(send.params.caption);
      sendsOf.set(caption, [...(sendsOf.get(caption) ?? []), send.files.length]);
      expect(send.files[0].bytes.equals(fixture('sample.png'))).toBe(true);
    }
    // Sent at most once each; a published post exactly once, with its message recorded.
    expect([...sendsOf.entries()].filter(([, sends]) => sends.length > 1)).toEqual([]);
    const published = targets.filter((t) => t.status === 'published');
    const failed = targets.filter((t) => t.status === 'failed');
    for (const target of published) {
      expect(sendsOf.get(target.text)).toHaveLength(1);
      expect(target.message_ids).toHaveLength(1);
    }
    // The only failures: sends in flight in the killed worker, whose outcome nobody knows.
    expect(
      failed.map((t) => t.error_code).filter((code) => code !== 'delivery_unconfirmed'),
    ).toEqual([]);
    expect(published.length + failed.length).toBe(CREATE_LIMIT);
    expect(published.length).toBeGreaterThan(CREATE_LIMIT / 2);
    process.stdout.write(
      `scale-out: ${published.length} published, ${failed.length} delivery_unconfirmed\n`,
    );
  }, 300_000);
});

/**
 * Fault run: posts published to Telegram (a stand-in) with a webhook endpoint listening, while a
 * worker is killed with SIGKILL, Redis is killed (and comes back empty) and PostgreSQL's
 * connections are cut. Prints what was lost or done twice; asserts nothing (bench/README.md).
 *
 * Every fault is made to something this script starts: a Redis server of its own, and a TCP proxy
 * in front of PostgreSQL that the Herald processes connect through. The machine's PostgreSQL and
 * Redis are never touched (the script's own database is created and dropped on PostgreSQL).
 *
 *   npx ts-node --transpile-only bench/faults.ts [posts]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { Socket } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { runCli } from '../src/operations/cli/commands';
import { loadConfig } from '../src/infrastructure/config/config';
import { dropTestDatabase } from '../test/support/databases';
import {
  heraldReady,
  spawnHerald,
  stopHerald,
  type HeraldProcess,
} from '../test/support/herald-process';
import { TcpProxy } from '../test/support/tcp-proxy';
import { TelegramStandIn } from '../test/support/stand-ins/telegram-stand-in';
import { createMigratedDatabase, TEST_APP_SECRET } from '../test/support/test-app';
import { WebhookReceiver } from '../test/support/webhook-receiver';
import { freePort, postJson } from './support';

const POSTS = Number(process.argv[2] ?? 300);
/** The posts are created at an even pace over this long, so that every fault meets some. */
const LOAD_MS = 32_000;
const CHANNELS = 4;
/** Requests in flight at once from the simulated integrator. */
const CLIENTS = 8;
const METRICS_TOKEN = 'bench-faults-metrics-token';
/** How long the run may take to settle once the load and the faults are over. */
const SETTLE_MS = 180_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** A Redis server of the script's own, without persistence: killed, it comes back empty. */
class OwnRedis {
  private child?: ChildProcess;
  constructor(readonly port: number) {}

  async start(): Promise<this> {
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100; i++) {
      const ok = await new Promise<boolean>((resolve) => {
        const socket = new Socket()
          .once('connect', () => resolve(true))
          .once('error', () => resolve(false));
        socket.connect(this.port, '127.0.0.1');
        setTimeout(() => socket.destroy(), 200);
      });
      if (ok) return this;
      await sleep(50);
    }
    throw new Error('redis-server did not start');
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
}

async function main(): Promise<void> {
  const { name, url } = await createMigratedDatabase();
  const redis = await new OwnRedis(await freePort()).start();
  const pgProxy = await new TcpProxy('127.0.0.1', Number(new URL(url).port || 5432)).start();
  const telegram = await new TelegramStandIn().start();
  telegram.answerAfter(150, 100); // sends are in flight when a fault strikes
  const receiver = await new WebhookReceiver().start();
  const proxied = new URL(url);
  proxied.host = `127.0.0.1:${pgProxy.port}`;
  const env: Record<string, string> = {
    DATABASE_URL: proxied.toString(),
    REDIS_URL: `redis://127.0.0.1:${redis.port}`,
    REDIS_KEY_PREFIX: `herald-faults-${randomBytes(4).toString('hex')}`,
    APP_SECRET: TEST_APP_SECRET,
    MEDIA_STORAGE_DIR: mkdtempSync(join(tmpdir(), 'herald-faults-')),
    TELEGRAM_API_BASE_URL: telegram.url,
    TELEGRAM_BOT_MESSAGES_PER_SECOND: '1000',
    TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '100000',
    MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.1/32',
    RATE_LIMIT_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    METRICS_TOKEN,
    // A dead worker's jobs and webhook attempts are taken over within seconds, not the defaults.
    PUBLICATION_LOCK_MS: '4000',
    PUBLICATION_SWEEP_INTERVAL_MS: '2000',
    PUBLICATION_RETRY_BASE_MS: '200',
    WEBHOOK_LOCK_MS: '3000',
    WEBHOOK_TIMEOUT_MS: '3000',
    WEBHOOK_SWEEP_INTERVAL_MS: '2000',
    WEBHOOK_RETRY_DELAYS_MS: '1000,2000,4000,8000,15000,30000',
  };
  const processes: HeraldProcess[] = [];
  const start = async (role: 'api' | 'worker') => {
    const herald = spawnHerald(role, await freePort(), env);
    processes.push(herald);
    await heraldReady(herald, 120_000, METRICS_TOKEN);
    return herald;
  };
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const api = await start('api');
    let workers = [await start('worker'), await start('worker')];
    const seeded = await seed(api.base, telegram, env);
    const hook = await postJson(api.base)(
      `/api/public/v1/projects/${seeded.projectId}/webhooks`,
      { url: receiver.url('/faults'), events: ['post.published', 'post.failed'] },
      `Bearer ${seeded.key}`,
    );
    receiver.expect('/faults', hook.secret as string);
    // The receiver takes a while to answer: attempts are in flight when the worker is killed.
    receiver.script('/faults', ...Array.from({ length: POSTS * 2 }, () => ({ delayMs: 300 })));

    // The integrator: every post created once, retried with its Idempotency-Key until answered.
    const created = new Map<number, number>(); // post index → id
    let retries = 0;
    const loadStart = Date.now();
    const createAll = pool(POSTS, CLIENTS, async (i) => {
      await sleep(loadStart + (i * LOAD_MS) / POSTS - Date.now());
      for (;;) {
        try {
          const res = await fetch(`${api.base}/api/public/v1/projects/${seeded.projectId}/posts`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${seeded.key}`,
              'content-type': 'application/json',
              'idempotency-key': `faults-${i}`,
            },
            body: JSON.stringify({
              text: `Fault run post ${i}`,
              targets: seeded.refs.map((ref) => ({ channel_ref: ref })),
              publish_now: true,
            }),
          });
          const body = (await res.json()) as { id?: number };
          if (res.status === 201 && body.id) return void created.set(i, body.id);
        } catch {
          // no answer: the same request again
        }
        retries++;
        await sleep(250);
      }
    });

    // The faults, one after another while the posts come in.
    const faults: string[] = [];
    await sleep(4_000);
    await stopHerald(workers[0], 'SIGKILL');
    faults.push(`${since(loadStart)} worker killed (SIGKILL), a new one started`);
    workers = [workers[1], await start('worker')];
    await sleep(Math.max(0, loadStart + 11_000 - Date.now()));
    await redis.kill();
    faults.push(`${since(loadStart)} Redis killed (SIGKILL), restarted empty after 3 s`);
    await sleep(3_000);
    await redis.start();
    await sleep(Math.max(0, loadStart + 19_000 - Date.now()));
    pgProxy.cut('refuse');
    faults.push(`${since(loadStart)} PostgreSQL connections cut and refused for 8 s`);
    await sleep(8_000);
    pgProxy.restore();
    await createAll;
    faults.push(`${since(loadStart)} every post created`);

    // Settled: every post final, every event's sends finished.
    const until = Date.now() + SETTLE_MS;
    for (;;) {
      const { rows } = await db.query<{ open: number }>(
        `SELECT (SELECT count(*) FROM posts WHERE status NOT IN ('published', 'failed'))
              + (SELECT count(*) FROM webhook_sends WHERE status = 'pending') AS open`,
      );
      if (Number(rows[0].open) === 0 || Date.now() > until) break;
      await sleep(1_000);
    }
    faults.push(`${since(loadStart)} settled`);
    await report(db, telegram, receiver, { created, retries, faults, loadStart });
  } finally {
    for (const herald of processes) await stopHerald(herald, 'SIGKILL');
    if (process.env.BENCH_FAULTS_LOGS === '1')
      for (const herald of processes) console.log(`--- ${herald.role}\n${herald.logs}`);
    await db.end();
    await pgProxy.stop();
    await redis.kill();
    await receiver.stop();
    await telegram.stop();
    await dropTestDatabase(name);
  }
}

/** Seconds since the load began, for the timeline of faults. */
const since = (start: number) => `${((Date.now() - start) / 1000).toFixed(1).padStart(5)} s`;

async function report(
  db: Client,
  telegram: TelegramStandIn,
  receiver: WebhookReceiver,
  run: { created: Map<number, number>; retries: number; faults: string[]; loadStart: number },
): Promise<void> {
  const { created, retries, faults, loadStart } = run;
  const posts = (
    await db.query<{ id: number; text: string; status: string }>(
      'SELECT id, text, status FROM posts',
    )
  ).rows;
  const targets = (
    await db.query<{ status: string; error_code: string | null; n: string }>(
      'SELECT status, error_code, count(*) AS n FROM post_targets GROUP BY 1, 2 ORDER BY 1, 2',
    )
  ).rows;
  const stored = new Set(posts.map((p) => p.id));
  const lost = [...created.values()].filter((id) => !stored.has(id)).length;
  const texts = new Map<string, number>();
  for (const p of posts) texts.set(p.text, (texts.get(p.text) ?? 0) + 1);
  const duplicatePosts = [...texts.values()].filter((n) => n > 1).length;
  // A message is "sent twice" when one post's text reached one chat more than once.
  const sends = new Map<string, number>();
  for (const call of telegram.deliveredOf('sendMessage')) {
    const key = `${String(call.params.chat_id)}|${String(call.params.text)}`;
    sends.set(key, (sends.get(key) ?? 0) + 1);
  }
  const sentTwice = [...sends.values()].filter((n) => n > 1).length;
  const published = (
    await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM post_targets WHERE status = 'published'`,
    )
  ).rows[0].n;
  const events = (
    await db.query<{ id: string }>(
      `SELECT e.id FROM webhook_events e JOIN webhook_sends s ON s.event_id = e.id`,
    )
  ).rows;
  const received = new Set(receiver.of('/faults').map((d) => d.id));
  const eventsLost = events.filter((e) => !received.has(e.id)).length;
  const lostAttempts = (
    await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM webhook_deliveries WHERE status_code IS NULL AND error LIKE 'The outcome of this attempt was lost%'`,
    )
  ).rows[0].n;
  const line = (label: string, value: unknown) => console.log(`  ${label.padEnd(44)} ${value}`);
  console.log(`\nFault run: ${POSTS} posts × ${CHANNELS} channels, ${cpus().length} cores`);
  for (const fault of faults) console.log(`  ${fault}`);
  console.log('Posts');
  line('created (201), retried requests', `${created.size}, ${retries}`);
  line('lost (answered 201, not stored)', lost);
  line('stored twice (same Idempotency-Key)', duplicatePosts);
  line('final status', countBy(posts.map((p) => p.status)));
  console.log('Targets');
  for (const t of targets) line(`${t.status} ${t.error_code ?? ''}`, t.n);
  line('messages at the stand-in / targets published', `${sends.size} / ${published}`);
  line('sent twice (one post, one chat)', sentTwice);
  // When the sends of the targets that ended unconfirmed reached the stand-in: which fault hit them.
  const unconfirmed = (
    await db.query<{ text: string; chat_id: string }>(
      `SELECT p.text, t.chat_id FROM post_targets t JOIN posts p ON p.id = t.post_id
        WHERE t.error_code = 'delivery_unconfirmed'`,
    )
  ).rows;
  const arrivals = unconfirmed.map(({ text, chat_id }) => {
    const call = telegram
      .deliveredOf('sendMessage')
      .find((c) => c.params.text === text && String(c.params.chat_id) === chat_id);
    return call ? `${((call.at - loadStart) / 1000).toFixed(1)} s` : 'never sent';
  });
  line('unconfirmed: their sends arrived at', arrivals.join(', ') || '-');
  console.log('Webhooks');
  line('events with a send / received (distinct)', `${events.length} / ${received.size}`);
  line('events lost', eventsLost);
  line(
    'deliveries received / rejected signatures',
    `${receiver.of('/faults').length} / ${receiver.rejected.length}`,
  );
  line('attempts logged as lost', lostAttempts);
}

function countBy(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k} ${n}`).join(', ');
}

async function pool(n: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

/** An administrator, a project, a bot with CHANNELS channels and a live key: through the API. */
async function seed(base: string, telegram: TelegramStandIn, env: Record<string, string>) {
  const post = postJson(base);
  const email = `bench.faults.${process.pid}@example.com`;
  const user = await post('/api/auth/register', {
    email,
    password: 'correct horse battery',
    name: 'Faults',
  });
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
  if ((await runCli(['grant-admin', email], config, { out: () => undefined })) !== 0)
    throw new Error('grant-admin failed');
  const auth = `Bearer ${user.token as string}`;
  const project = await post('/api/projects', { name: 'Faults', timezone: 'UTC' }, auth);
  const account = await post(
    '/api/accounts',
    { project_id: project.id, platform: 'telegram', bot_token: telegram.addBot('faults_bot') },
    auth,
  );
  const refs: string[] = [];
  for (let c = 0; c < CHANNELS; c++) {
    const chatId = -1003000000000 - c;
    telegram.addChat({ id: chatId, type: 'channel', title: `Faults ${c}` });
    const channel = await post(
      `/api/accounts/${account.id as number}/channels`,
      { chat: String(chatId) },
      auth,
    );
    refs.push(channel.id as string);
  }
  const key = (await post('/api/api-keys', { name: 'faults' }, auth)).key as string;
  return { key, projectId: project.id as number, refs };
}

void main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);

/**
 * Scheduled posts on the second: from `scheduled_at` to the post's first request at the platform,
 * with a million posts scheduled further ahead. See bench/README.md.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '../src/infrastructure/config/config';
import { dropTestDatabase } from '../test/support/databases';
import { deleteRedisKeys } from '../test/support/redis-keys';
import { TelegramStandIn } from '../test/support/stand-ins/telegram-stand-in';
import { createMigratedDatabase } from '../test/support/test-app';
import {
  cpuSeconds,
  freePort,
  heraldNodeFlags,
  postJson,
  waitUntilAnswers,
  registerAdmin,
  benchHeraldEnv,
} from './support';

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 1_000_000);
/** Posts due each second of the measured window. */
const RATE = Number(process.env.BENCH_RATE ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
/** The measured posts made long ahead are due this long after the run starts. */
const LEAD_SECONDS = Number(process.env.BENCH_LEAD_SECONDS ?? 180);
/** The other half are created this long before they are due, while the window runs. */
const SHORT_LEAD_SECONDS = Number(process.env.BENCH_SHORT_LEAD_SECONDS ?? 10);
const BOTS = Number(process.env.BENCH_BOTS ?? 10);
const CHATS_PER_BOT = Number(process.env.BENCH_CHATS_PER_BOT ?? 30);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 32);
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DIST_DIR = resolve(process.env.BENCH_DIST_DIR ?? join(__dirname, '..', 'dist'));
/** Past this, a post still not sent counts as late by the run's end. */
const DRAIN_SECONDS = Number(process.env.BENCH_DRAIN_SECONDS ?? 60);

const sleep = (ms: number) => new Promise((done) => setTimeout(done, Math.max(0, ms)));
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const BUCKETS_MS = [25, 50, 100, 200, 300, 500, 750, 1_000, 2_000, 5_000, 10_000, Infinity];

function histogram(title: string, delays: number[]): void {
  const counts = BUCKETS_MS.map(() => 0);
  for (const delay of delays) counts[BUCKETS_MS.findIndex((edge) => delay < edge)]++;
  const widest = Math.max(1, ...counts);
  console.log(
    `\n${title}: ${delays.length} posts; p50 ${percentile(delays, 50).toFixed(0)} ms, ` +
      `p99 ${percentile(delays, 99).toFixed(0)} ms, max ${Math.max(...delays).toFixed(0)} ms (target p99 ≤ 1,000 ms)`,
  );
  let from = 0;
  for (const [i, edge] of BUCKETS_MS.entries()) {
    const label = edge === Infinity ? `≥ ${from} ms` : `${from}–${edge} ms`;
    const bar = '█'.repeat(Math.round((40 * counts[i]) / widest));
    console.log(`  ${label.padStart(16)} ${String(counts[i]).padStart(6)} ${bar}`);
    from = edge;
  }
}

function heraldEnv(url: string, prefix: string, port: number, telegram: TelegramStandIn) {
  return {
    ...benchHeraldEnv(url, prefix, port),
    TELEGRAM_API_BASE_URL: telegram.url,
    // The default horizon (10 minutes) would take the measured posts' jobs at create: a shorter
    // one makes the sweep give them their jobs, as it does every post scheduled further ahead.
    PUBLICATION_SCHEDULE_HORIZON_MS: process.env.BENCH_HORIZON_MS ?? '60000',
  };
}

function startHerald(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...heraldNodeFlags(), join(DIST_DIR, 'src', 'main.js')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', process.env.BENCH_LOG_LEVEL ? 'inherit' : 'ignore', 'inherit'],
  });
}

/** A user, a project, BOTS bots with their chats and an API key, through the API. */
async function seed(base: string, telegram: TelegramStandIn, env: Record<string, string>) {
  const post = postJson(base);
  const { email, auth } = await registerAdmin(base, loadConfig(env), 'schedule');
  const project = await post('/api/projects', { name: 'Schedule', timezone: 'UTC' }, auth);
  const refs: string[] = [];
  for (let bot = 0; bot < BOTS; bot++) {
    const account = await post(
      '/api/accounts',
      {
        project_id: project.id,
        platform: 'telegram',
        bot_token: telegram.addBot(`sched_${bot}_bot`),
      },
      auth,
    );
    for (let c = 0; c < CHATS_PER_BOT; c++) {
      const chat = -1004000000000 - bot * 1000 - c;
      telegram.addChat({ id: chat, type: 'channel', title: `Schedule ${bot}/${c}` });
      await post(`/api/accounts/${account.id as number}/channels`, { chat: String(chat) }, auth);
      refs.push(`telegram:${account.id as number}:${chat}`);
    }
  }
  const key = (await post('/api/api-keys', { name: 'bench' }, auth)).key as string;
  return { key, projectId: project.id as number, email, refs };
}

/** The backlog: scheduled from a day to a year ahead, each with a target, in a few statements. */
async function loadBacklog(db: Client, projectId: number, email: string): Promise<void> {
  const started = Date.now();
  const { rows } = await db.query<{ id: number }>('SELECT id FROM users WHERE email = $1', [email]);
  const chunk = 250_000;
  for (let from = 0; from < BACKLOG; from += chunk) {
    const to = Math.min(BACKLOG, from + chunk);
    await db.query(
      `WITH ch AS (SELECT array_agg(id ORDER BY id) AS ids FROM channels
                    WHERE account_id IN (SELECT id FROM accounts WHERE project_id = $1)),
       made AS (
         INSERT INTO posts (project_id, created_by_user_id, text, status, publish_attempt,
                            scheduled_at, created_at, updated_at, test)
         SELECT $1, $2, 'Later ' || g, 'scheduled', 1,
                now() + interval '1 day' + (g::float8 / $5) * interval '364 days', now(), now(), false
           FROM generate_series($3::int, $4::int - 1) g
         RETURNING id)
       INSERT INTO post_targets (post_id, channel_id, platform, account_id, chat_id, position)
       SELECT made.id, c.id, c.platform, c.account_id, c.channel_id, 0
         FROM made, ch JOIN channels c ON true
        WHERE c.id = ch.ids[1 + made.id % cardinality(ch.ids)]`,
      [projectId, rows[0].id, from, to, BACKLOG],
    );
  }
  await db.query('VACUUM ANALYZE posts');
  await db.query('VACUUM ANALYZE post_targets');
  console.log(
    `${BACKLOG.toLocaleString('en')} posts scheduled from a day to a year ahead, loaded with SQL in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

interface Measured {
  seq: number;
  dueMs: number;
  early: boolean;
  id?: number;
  error?: string;
}

/** POSTs each measured post with its scheduled_at, at most IN_FLIGHT at a time. */
async function create(
  base: string,
  key: string,
  projectId: number,
  refs: string[],
  posts: Measured[],
) {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < posts.length) {
        const post = posts[next++];
        const res = await fetch(`${base}/api/public/v1/projects/${projectId}/posts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({
            text: `sp-${post.seq}`,
            targets: [{ channel_ref: refs[post.seq % refs.length] }],
            scheduled_at: new Date(post.dueMs).toISOString(),
          }),
        });
        const body = (await res.json()) as { id?: number };
        if (res.status === 201) post.id = body.id;
        else post.error = `${res.status} ${JSON.stringify(body)}`;
      }
    }),
  );
}

async function main(): Promise<void> {
  console.log(`Herald from ${DIST_DIR}, one api and one worker process; load ${load()}`);
  const telegram = (await new TelegramStandIn().start()).enforceLimits({
    botMessagesPerSecond: 30,
    chatMessagesPerMinute: 20,
  });
  const { name, url } = await createMigratedDatabase();
  const prefix = `herald-bench-${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const env = heraldEnv(url, prefix, port, telegram);
  const api = startHerald(env);
  const children: ChildProcess[] = [api];
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitUntilAnswers(`${base}/api/public/v1/openapi.json`, api, 'Herald');
    const { key, projectId, email, refs } = await seed(base, telegram, env);
    await loadBacklog(db, projectId, email);
    const worker = startHerald({ ...env, APP_ROLE: 'worker', PORT: String(await freePort()) });
    children.push(worker);

    // Half of each second's posts made now, long ahead; the other half made while the window runs.
    const t0 = Date.now();
    const windowStart = t0 + LEAD_SECONDS * 1000;
    const posts: Measured[] = [];
    for (let i = 0; i < RATE * SECONDS; i++)
      posts.push({ seq: i, dueMs: windowStart + (i * 1000) / RATE, early: i % 2 === 0 });
    const early = posts.filter((p) => p.early);
    const late = posts.filter((p) => !p.early);
    await create(base, key, projectId, refs, early);
    console.log(
      `${early.length} posts created ahead in ${((Date.now() - t0) / 1000).toFixed(1)} s, due from ${LEAD_SECONDS} s on; load ${load()}`,
    );
    const cpu0 = { worker: cpuSeconds(worker.pid), api: cpuSeconds(api.pid) };
    // The others, each SHORT_LEAD_SECONDS before it is due, in batches of 100 ms.
    const lateDone = (async () => {
      for (let i = 0; i < late.length;) {
        const batch: Measured[] = [];
        const until = Date.now() + SHORT_LEAD_SECONDS * 1000 + 100;
        while (i < late.length && late[i].dueMs < until) batch.push(late[i++]);
        if (batch.length > 0) await create(base, key, projectId, refs, batch);
        await sleep(Math.min(100, (late[i]?.dueMs ?? 0) - SHORT_LEAD_SECONDS * 1000 - Date.now()));
      }
    })();
    await sleep(windowStart - Date.now());
    console.log(`window starts; load ${load()}`);
    await lateDone;
    await sleep(windowStart + SECONDS * 1000 - Date.now());
    const ids = posts.filter((p) => p.id !== undefined).map((p) => p.id!);
    const drainUntil = Date.now() + DRAIN_SECONDS * 1000;
    while (Date.now() < drainUntil) {
      const { rows } = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM posts WHERE id = ANY($1) AND status IN ('scheduled', 'queued', 'publishing')`,
        [ids],
      );
      if (Number(rows[0].n) === 0) break;
      await sleep(500);
    }
    const cpu = {
      worker: cpuSeconds(worker.pid) - cpu0.worker,
      api: cpuSeconds(api.pid) - cpu0.api,
    };

    const firstRequest = new Map<number, number>();
    let sends = 0;
    let limited = 0;
    for (const call of telegram.calls) {
      const match = /^sp-(\d+)$/.exec(String(call.params.text));
      if (!match) continue;
      sends++;
      if (call.rateLimited) limited++;
      const seq = Number(match[1]);
      if (!firstRequest.has(seq) || firstRequest.get(seq)! > call.at)
        firstRequest.set(seq, call.at);
    }
    const delayOf = (p: Measured) => firstRequest.get(p.seq)! - p.dueMs;
    const reached = posts.filter((p) => firstRequest.has(p.seq));
    const early2 = reached.filter((p) => p.early).map(delayOf);
    const late2 = reached.filter((p) => !p.early).map(delayOf);
    const beforeDue = reached.filter((p) => delayOf(p) < 0).length;
    const createErrors = posts.filter((p) => p.error !== undefined);
    console.log(
      `\n${posts.length} posts due over ${SECONDS} s (${RATE} a second) on ${BOTS} bots of ${CHATS_PER_BOT} chats, ` +
        `${BACKLOG.toLocaleString('en')} more scheduled a day to a year ahead; ` +
        `reached the stand-in ${reached.length}, never ${posts.length - reached.length - createErrors.length}, ` +
        `create errors ${createErrors.length}${createErrors[0] ? ` (${createErrors[0].error})` : ''}; ` +
        `before their time ${beforeDue}; sends ${sends}, answered 429 ${limited}`,
    );
    histogram('scheduled_at → first platform request, all', [...early2, ...late2]);
    histogram(`… posts created ${LEAD_SECONDS} s ahead (their jobs come from the sweep)`, early2);
    histogram(`… posts created ${SHORT_LEAD_SECONDS} s ahead (their jobs come at create)`, late2);
    console.log(
      `\nCPU from the first measured create on: worker ${cpu.worker.toFixed(1)} s, api ${cpu.api.toFixed(1)} s; load ${load()}`,
    );
  } finally {
    for (const child of children) {
      if (child.exitCode !== null) continue;
      child.kill('SIGTERM');
      await new Promise((done) => child.once('exit', done));
    }
    await db.end();
    await telegram.stop();
    await dropTestDatabase(name);
    await deleteRedisKeys(REDIS_URL, prefix);
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

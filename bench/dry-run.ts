/**
 * What a dry run costs against the create it stands for: CPU of Herald's `api` process per request
 * of `POST /projects/{id}/posts/validate` and of `POST /projects/{id}/posts` (a draft), the same
 * bodies, alternating round by round (see bench/README.md).
 *
 *   npm run build
 *   npx ts-node --transpile-only bench/dry-run.ts
 *
 * Needs the PostgreSQL and Redis of the tests (TEST_ADMIN_DATABASE_URL, TEST_REDIS_URL).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { request } from 'undici';
import { runCli } from '../src/operations/cli/commands';
import { loadConfig } from '../src/infrastructure/config/config';
import { dropTestDatabase } from '../test/support/databases';
import { deleteRedisKeys } from '../test/support/redis-keys';
import { TelegramStandIn } from '../test/support/stand-ins/telegram-stand-in';
import { createMigratedDatabase, TEST_APP_SECRET } from '../test/support/test-app';
import {
  cpuSeconds,
  freePort,
  heraldNodeFlags,
  postJson,
  sampleDatabaseBackends,
  waitUntilAnswers,
} from './support';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const WARMUP = Number(process.env.BENCH_WARMUP_REQUESTS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 16);
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DIST_DIR = resolve(process.env.BENCH_DIST_DIR ?? join(__dirname, '..', 'dist'));
const CHANNELS = 3;

/** The bodies both routes get, in turn: text alone, text with a link, a longer text. */
function bodies(refs: string[]): unknown[] {
  const targets = refs.map((channel_ref) => ({ channel_ref }));
  return [
    { text: 'Release notes for this week are out.', targets },
    { text: 'Read the full story: https://example.com/news/2026/11/a-story?ref=herald', targets },
    { text: 'A longer announcement. '.repeat(40).trim(), targets: targets.slice(0, 1) },
  ];
}

async function main(): Promise<void> {
  const telegram = await new TelegramStandIn().start();
  const { name, url } = await createMigratedDatabase();
  const prefix = `herald-bench-${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const env = {
    DATABASE_URL: url,
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    APP_SECRET: TEST_APP_SECRET,
    LOG_LEVEL: 'warn',
    PORT: String(port),
    APP_ROLE: 'api',
    TELEGRAM_API_BASE_URL: telegram.url,
    MEDIA_STORAGE_DIR: join('/tmp', prefix),
    RATE_LIMIT_CREATE_POST: '1000000000',
    RATE_LIMIT_PUBLISH: '1000000000',
    RATE_LIMIT_OTHER: '1000000000',
  };
  const api = spawn(process.execPath, [...heraldNodeFlags(), join(DIST_DIR, 'src', 'main.js')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitUntilAnswers(`${base}/api/public/v1/openapi.json`, api, 'Herald');
    const post = postJson(base);
    const email = `bench.dry-run.${process.pid}@example.com`;
    const registered = await post('/api/auth/register', {
      email,
      password: 'correct horse battery',
      name: 'Bench',
    });
    if ((await runCli(['grant-admin', email], loadConfig(env), { out: () => undefined })) !== 0)
      throw new Error('grant-admin failed');
    const auth = `Bearer ${registered.token as string}`;
    const project = await post('/api/projects', { name: 'Dry run', timezone: 'UTC' }, auth);
    const account = await post(
      '/api/accounts',
      { project_id: project.id, platform: 'telegram', bot_token: telegram.addBot('dry_run_bot') },
      auth,
    );
    const refs: string[] = [];
    for (let c = 0; c < CHANNELS; c++) {
      const chat = -1004000000000 - c;
      telegram.addChat({ id: chat, type: 'channel', title: `Dry run ${c}` });
      await post(`/api/accounts/${account.id as number}/channels`, { chat: String(chat) }, auth);
      refs.push(`telegram:${account.id as number}:${chat}`);
    }
    const key = (await post('/api/api-keys', { name: 'bench' }, auth)).key as string;
    const shapes = bodies(refs).map((body) => JSON.stringify(body));
    const path = `${base}/api/public/v1/projects/${project.id as number}/posts`;
    const routes = {
      validate: { url: `${path}/validate`, status: 200 },
      create: { url: path, status: 201 },
    };
    const run = async (route: keyof typeof routes, n: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < n) {
            const body = shapes[next++ % shapes.length];
            const res = await request(routes[route].url, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
              body,
            });
            const text = await res.body.text();
            if (res.statusCode !== routes[route].status)
              throw new Error(`${route}: ${res.statusCode} ${text}`);
          }
        }),
      );
    };
    console.log(
      `Herald from ${DIST_DIR} (api process); ${REQUESTS} requests per run, ${IN_FLIGHT} in flight, ` +
        `bodies of ${shapes.map((s) => s.length).join(', ')} bytes in turn; load ${load()}`,
    );
    await run('validate', WARMUP);
    await run('create', WARMUP);
    const figures: Record<keyof typeof routes, number[]> = { validate: [], create: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Odd rounds in the other order, so that neither route always runs first.
      const order: (keyof typeof routes)[] =
        round % 2 === 0 ? ['validate', 'create'] : ['create', 'validate'];
      const line: string[] = [];
      for (const route of order) {
        const backends = sampleDatabaseBackends(db, name);
        const before = cpuSeconds(api.pid);
        const started = Date.now();
        await run(route, REQUESTS);
        const seconds = (Date.now() - started) / 1000;
        const cpuMs = ((cpuSeconds(api.pid) - before) * 1000) / REQUESTS;
        const pgMs = (await backends.stop()) / REQUESTS;
        figures[route].push(cpuMs);
        line.push(
          `${route} ${cpuMs.toFixed(3)} ms CPU/request (PostgreSQL ${pgMs.toFixed(3)} ms), ${(REQUESTS / seconds).toFixed(0)} req/s`,
        );
      }
      const ratio = figures.validate[round] / figures.create[round];
      console.log(
        `round ${round + 1}: ${line.join('; ')}; validate/create ${ratio.toFixed(2)}; load ${load()}`,
      );
    }
    const validate = median(figures.validate);
    const create = median(figures.create);
    console.log(
      `median: validate ${validate.toFixed(3)} ms, create (draft) ${create.toFixed(3)} ms of the api process's CPU per request; ` +
        `validate/create ${(validate / create).toFixed(2)}`,
    );
  } finally {
    api.kill('SIGTERM');
    await new Promise((done) => api.once('exit', done));
    await db.end();
    await telegram.stop();
    await dropTestDatabase(name);
    await deleteRedisKeys(REDIS_URL, prefix);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

import { execFileSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { AppConfig } from '../src/infrastructure/config/config';
import { runCli } from '../src/operations/cli/commands';
import { TEST_APP_SECRET } from '../test/support/test-app';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..');

/** Linux's USER_HZ: /proc times are in these ticks. */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; NaN if gone. */
export function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of proc(5), counted after the command name: utime and stime.
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds used so far by every live process whose command name is `comm` (e.g. `postgres`). */
export function cpuSecondsOfCommand(comm: string): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== comm) continue;
    } catch {
      continue; // gone meanwhile
    }
    const seconds = cpuSeconds(Number(pid));
    if (!Number.isNaN(seconds)) total += seconds;
  }
  return total;
}

export { freePort } from '../test/support/free-port';
export { heraldNodeFlags } from '../test/support/node-flags';

/**
 * The given TypeScript files of the checkout (and what they import of it) compiled to plain
 * JavaScript; returns each one's compiled path, in order. A process measured by a benchmark must
 * not run through ts-node: its register hook loads Node's `domain` module, which from then on
 * defines an own `domain` property on every EventEmitter the process creates (every request,
 * answer, socket and pg query) and routes every emit and native callback through domain code, a
 * cost a production process (`node dist/src/main.js`) never pays. Written under
 * `node_modules/.cache`, from where the compiled files still find the checkout's packages.
 */
export function compiledForBench(files: string[]): string[] {
  const outDir = join(ROOT, 'node_modules', '.cache', 'herald-bench');
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      ...['--outDir', outDir, '--rootDir', ROOT, '--noCheck', '--skipLibCheck', '--ignoreConfig'],
      ...['--module', 'node16', '--moduleResolution', 'node16', '--target', 'ES2022'],
      ...['--experimentalDecorators', '--emitDecoratorMetadata', '--esModuleInterop'],
      ...['--types', 'node'],
      ...files,
    ],
    { stdio: 'inherit' },
  );
  return files.map((file) => join(outDir, relative(ROOT, file)).replace(/\.ts$/, '.js'));
}

/**
 * A POST of a JSON body to `base`, which must answer 201; the answer's JSON. For seeding a bench
 * through the API (registration, projects, keys), not for measured requests.
 */
export function postJson(base: string) {
  return async (path: string, body: unknown, auth?: string): Promise<Record<string, unknown>> => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
}

/**
 * A user registered through the API and made an administrator with the CLI (`grant-admin`), as an
 * operator would: its email and `Authorization` header, for seeding a bench.
 */
export async function registerAdmin(
  base: string,
  config: AppConfig,
  who: string,
): Promise<{ email: string; auth: string }> {
  const email = `bench.${who}.${process.pid}@example.com`;
  const registered = await postJson(base)('/api/auth/register', {
    email,
    password: 'correct horse battery',
    name: 'Bench',
  });
  if ((await runCli(['grant-admin', email], config, { out: () => undefined })) !== 0)
    throw new Error('grant-admin failed');
  return { email, auth: `Bearer ${registered.token as string}` };
}

/**
 * What every Herald process of a delivery bench starts with: its database and Redis prefix, the
 * `api` role on `port` (a worker overrides both), media under /tmp, and the API's own request
 * limits out of the way of the offered load.
 */
export function benchHeraldEnv(url: string, prefix: string, port: number): Record<string, string> {
  return {
    DATABASE_URL: url,
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: prefix,
    APP_SECRET: TEST_APP_SECRET,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    PORT: String(port),
    APP_ROLE: 'api',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    MEDIA_STORAGE_DIR: join('/tmp', prefix),
    RATE_LIMIT_CREATE_POST: '1000000000',
    RATE_LIMIT_PUBLISH: '1000000000',
    RATE_LIMIT_OTHER: '1000000000',
    APP_RATE_LIMIT_PER_MINUTE: '1000000000',
  };
}

/** The same server's URL naming another database. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.href;
}

/** Polls `url` until it answers 2xx; fails early when the child exits, or after `timeoutMs`. */
export async function waitUntilAnswers(
  url: string,
  child: ChildProcess,
  name: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited while starting`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, 200));
  }
  throw new Error(`${name} did not start within ${timeoutMs / 1000} s`);
}

/**
 * CPU of the PostgreSQL backends serving one database, sampled while a run lasts: every
 * `intervalMs` it lists the database's backends (pg_stat_activity, the sampling connection
 * itself left out) and reads each one's CPU from /proc, so that other databases' backends (other
 * benchmarks, test suites), autovacuum and the server's background processes are not counted.
 * A backend that starts during the run counts from its start; one that ends between two samples
 * loses its last interval (pooled connections live for the whole run).
 */
export function sampleDatabaseBackends(
  client: { query: (sql: string, values: unknown[]) => Promise<{ rows: { pid: number }[] }> },
  database: string,
  intervalMs = 200,
): { stop: () => Promise<number> } {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let stopped = false;
  let sampled = false;
  const sample = async () => {
    const { rows } = await client.query(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    for (const { pid } of rows) {
      const ms = cpuSeconds(pid) * 1000;
      if (Number.isNaN(ms)) continue;
      // A backend that starts during the run counts from its start.
      if (!first.has(pid)) first.set(pid, sampled ? 0 : ms);
      last.set(pid, ms);
    }
    sampled = true;
  };
  const loop = (async () => {
    while (!stopped) {
      await sample();
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
    await sample();
  })();
  return {
    /** CPU ms the database's backends used from the first sample to the last. */
    stop: async () => {
      stopped = true;
      await loop;
      let total = 0;
      for (const [pid, ms] of last) total += ms - first.get(pid)!;
      return total;
    },
  };
}

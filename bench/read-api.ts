/**
 * Read-API benchmark: loads GET /api/public/v1/projects and
 * GET /api/public/v1/usage on three servers doing the same key lookup, query and answer: the bare
 * floor (node:http + pg, bench/baseline-server.ts), the framework floor (a minimal NestJS +
 * Express app, bench/framework-server.ts) and the built Herald with its rate limiter, logging and
 * every guard on; prints requests/s, p50/p99 and CPU per request side by side. Then latency with
 * an open-loop generator: requests started on a fixed schedule (BENCH_RATE, 1,000 req/s), each
 * one's latency counted from its scheduled time, so a server that falls behind cannot hide it.
 * Targets: Herald's CPU per request ≤ 1.25× the framework floor's; open-loop p99 ≤ 10 ms at
 * 1,000 req/s; ≥ 70% of the bare floor's requests/s.
 *
 * Then, on Herald alone: GET one post by id, and POST /posts with and without an
 * Idempotency-Key (a new key per request). Target: the key costs < 15% of create throughput.
 * BENCH_POSTS=0 skips this part.
 *
 *   npm run build && npx ts-node --transpile-only bench/read-api.ts
 *
 * See bench/README.md for the knobs (BENCH_* variables) and how to profile.
 */
import {
  compiledForBench,
  cpuSeconds,
  freePort,
  heraldNodeFlags,
  waitUntilAnswers,
  withDatabase,
} from './support';
import autocannon from 'autocannon';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { deleteRedisKeys } from '../test/support/redis-keys';
import { Client } from 'pg';
import { Pool } from 'undici';

const ROOT = resolve(__dirname, '..');
/** The build to measure; another one (a copy of an earlier dist/) for A/B comparisons. */
const DIST = resolve(process.env.BENCH_DIST_DIR ?? join(ROOT, 'dist'));
const HERALD_MAIN = join(DIST, 'src/main.js');
/** An earlier build of Herald, run as a fourth server beside the others for A/B under the same load. */
const BEFORE_MAIN = process.env.BENCH_BEFORE_DIST
  ? join(resolve(process.env.BENCH_BEFORE_DIST), 'src/main.js')
  : null;
const HERALD_CLI = join(DIST, 'src/operations/cli/main.js');
const HERALD_ORMCONFIG = join(DIST, 'ormconfig.js');
const TYPEORM_CLI = join(ROOT, 'node_modules/typeorm/cli.js');
const BASELINE_SERVER = join(__dirname, 'baseline-server.ts');
const FRAMEWORK_SERVER = join(__dirname, 'framework-server.ts');

const TARGET_SHARE = 0.7;
/** Herald's CPU per request may be at most this multiple of the framework floor's. */
const TARGET_CPU_OVER_FRAMEWORK = 1.25;
/** The open-loop run's p99 may be at most this many milliseconds. */
const TARGET_P99_MS = 10;
/**
 * The bare floor's CPU per GET /projects on the reference machine, where 1,000 req/s was set:
 * the open-loop run is repeated at 1,000 req/s scaled by how much slower this machine is.
 */
const REFERENCE_BARE_PROJECTS_CPU_MS = 0.1;
const SERVERS = ['baseline', 'framework', 'herald', 'before'] as const;
/** The servers that are Herald, held to its targets. */
const HERALDS: readonly ServerName[] = ['herald', 'before'];
type ServerName = (typeof SERVERS)[number];

const env = process.env;
const settings = {
  adminDatabaseUrl: env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  databaseName: env.BENCH_DATABASE_NAME ?? 'herald_bench',
  redisUrl: env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  durationSeconds: Number(env.BENCH_DURATION ?? 10),
  warmupSeconds: Number(env.BENCH_WARMUP ?? 5),
  connections: Number(env.BENCH_CONNECTIONS ?? 100),
  rounds: Number(env.BENCH_ROUNDS ?? 1),
  /** False: no closed-loop runs (nor the scaled open-loop run, which needs their figures). */
  closedLoop: env.BENCH_CLOSED_LOOP !== '0',
  /** Requests/s of the open-loop latency runs; 0 skips them. */
  openLoopRate: Number(env.BENCH_RATE ?? 1000),
  /** Seconds of the same schedule, unrecorded, before each open-loop run. */
  openLoopWarmupSeconds: Number(env.BENCH_RATE_WARMUP ?? 3),
  cpuProfileDir: env.BENCH_CPU_PROF ? resolve(env.BENCH_CPU_PROF) : null,
  /** False: Herald alone, straight to the posts part (no floors, no read runs). */
  read: env.BENCH_READ !== '0',
  posts: env.BENCH_POSTS !== '0',
};

/** An Idempotency-Key may cost at most this share of create throughput. */
const MAX_IDEMPOTENCY_COST = 0.15;

const ENDPOINTS = [
  { name: 'GET /projects', path: '/api/public/v1/projects' },
  { name: 'GET /usage', path: '/api/public/v1/usage' },
];

interface Measure {
  endpoint: string;
  server: ServerName;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
  failures: number;
  /** CPU time (user + system) the server process spent per answered request. */
  cpuMsPerRequest: number;
  /** The measured round it belongs to (1-based). */
  round?: number;
}

interface Server {
  name: ServerName;
  url: string;
  process: ChildProcess;
}

async function main(): Promise<void> {
  for (const file of [
    HERALD_MAIN,
    HERALD_CLI,
    HERALD_ORMCONFIG,
    ...(BEFORE_MAIN ? [BEFORE_MAIN] : []),
  ]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
  }
  // The floors run as plain JavaScript, as Herald's build does (see compiledForBench).
  const [baselineServer, frameworkServer] = compiledForBench([BASELINE_SERVER, FRAMEWORK_SERVER]);
  const databaseUrl = withDatabase(settings.adminDatabaseUrl, settings.databaseName);
  const appSecret = randomBytes(32).toString('hex');
  const redisKeyPrefix = `herald-bench-${process.pid}`;
  const mediaDir = mkdtempSync(join(tmpdir(), 'herald-bench-media-'));
  const heraldPort = await freePort();
  const baselinePort = await freePort();
  const frameworkPort = await freePort();
  const beforePort = await freePort();
  const heraldEnv = {
    ...env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    REDIS_URL: settings.redisUrl,
    REDIS_KEY_PREFIX: redisKeyPrefix,
    APP_SECRET: appSecret,
    APP_ROLE: 'api',
    PORT: String(heraldPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${heraldPort}`,
    MEDIA_STORAGE_DIR: mediaDir,
    // Production's level: every request logs its line (into a file here, as into a collector's pipe).
    LOG_LEVEL: 'info',
    RATE_LIMIT_OTHER: '100000000',
    RATE_LIMIT_CREATE_POST: '100000000',
  };

  console.log(
    `Herald read-API benchmark: ${cpus().length} CPU(s) (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`,
  );
  console.log(
    `Load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(`Seeding database ${settings.databaseName} (migrations, then the CLI's seed-demo)`);
  await recreateDatabase(settings.adminDatabaseUrl, settings.databaseName);
  run(process.execPath, [TYPEORM_CLI, 'migration:run', '-d', HERALD_ORMCONFIG], heraldEnv);
  const seedOutput = run(process.execPath, [HERALD_CLI, 'seed-demo'], heraldEnv);
  const key = /API key \(shown once\): (\S+)/.exec(seedOutput)?.[1];
  if (!key) throw new Error(`seed-demo printed no API key:\n${seedOutput}`);

  const servers: Server[] = [];
  const heraldLogPath = join(mediaDir, 'herald-stdout.log');
  const heraldLog = openSync(heraldLogPath, 'w');
  try {
    if (settings.read) {
      servers.push(
        startServer('baseline', baselinePort, process.execPath, [baselineServer], {
          ...env,
          PORT: String(baselinePort),
          DATABASE_URL: databaseUrl,
          APP_SECRET: appSecret,
        }),
      );
      servers.push(
        startServer(
          'framework',
          frameworkPort,
          process.execPath,
          serverArgs('framework', frameworkServer),
          { ...env, PORT: String(frameworkPort), DATABASE_URL: databaseUrl, APP_SECRET: appSecret },
        ),
      );
    }
    servers.push(
      startServer(
        'herald',
        heraldPort,
        process.execPath,
        serverArgs('herald', HERALD_MAIN),
        heraldEnv,
        heraldLog,
      ),
    );
    if (settings.read && BEFORE_MAIN) {
      const beforeEnv = { ...heraldEnv, PORT: String(beforePort) };
      servers.push(
        startServer(
          'before',
          beforePort,
          process.execPath,
          serverArgs('before', BEFORE_MAIN),
          beforeEnv,
          heraldLog,
        ),
      );
    }
    for (const server of servers) {
      await waitUntilAnswers(`${server.url}/health/live`, server.process, server.name, 30_000);
    }
    if (settings.read) {
      await checkSameAnswers(servers, key);

      // Herald's first seconds under load run unoptimised code (JIT); warm every path up first.
      console.log(`Warming up: ${settings.warmupSeconds} s per endpoint and server`);
      for (const server of servers) {
        for (const endpoint of ENDPOINTS) {
          await autocannon({
            url: `${server.url}${endpoint.path}`,
            headers: { authorization: `Bearer ${key}` },
            connections: settings.connections,
            duration: settings.warmupSeconds,
          });
        }
      }
      const measures: Measure[] = [];
      for (let round = 1; settings.closedLoop && round <= settings.rounds; round++) {
        for (const endpoint of ENDPOINTS) {
          for (const server of inRoundOrder(servers, round)) {
            const label = settings.rounds > 1 ? ` (round ${round})` : '';
            process.stdout.write(`Loading ${server.name.padEnd(8)} ${endpoint.name}${label} … `);
            const measure = { ...(await load(server, endpoint, key)), round };
            measures.push(measure);
            console.log(
              `${Math.round(measure.requestsPerSecond)} req/s, p99 ${measure.p99} ms, ` +
                `${measure.cpuMsPerRequest.toFixed(2)} ms CPU/request`,
            );
          }
        }
      }
      const bareProjectsCpuMs = settings.closedLoop ? report(measures) : 0;
      if (settings.openLoopRate > 0) {
        await openLoopLatency(servers, key, settings.openLoopRate, 'the target');
        if (bareProjectsCpuMs > 0) {
          const scaled = Math.round((1000 * REFERENCE_BARE_PROJECTS_CPU_MS) / bareProjectsCpuMs);
          await openLoopLatency(
            servers,
            key,
            scaled,
            `1,000 req/s scaled to this machine: 1,000 × ${REFERENCE_BARE_PROJECTS_CPU_MS} ms ÷ ${bareProjectsCpuMs.toFixed(2)} ms, the bare floor's CPU per GET /projects on the reference machine and here`,
          );
        }
      }
    }
    const herald = servers.find((server) => server.name === 'herald');
    if (settings.posts && herald) await postsBenchmark(herald, key);
  } finally {
    await Promise.all(servers.map((server) => stop(server)));
    closeSync(heraldLog);
    let logged = 0;
    for await (const line of createInterface({ input: createReadStream(heraldLogPath) }))
      if (line.includes('"request completed"')) logged += 1;
    console.log(`\nHerald logged ${logged} request lines at LOG_LEVEL=info`);
    await cleanUp(settings, redisKeyPrefix, mediaDir);
  }
  if (settings.cpuProfileDir) {
    const profiles = readdirSync(settings.cpuProfileDir).filter((f) => f.endsWith('.cpuprofile'));
    console.log(`\nCPU profiles in ${settings.cpuProfileDir}: ${profiles.join(', ')}`);
    console.log(
      'Summarise one with: npx ts-node --transpile-only bench/cpu-profile-summary.ts <file>',
    );
  }
}

/** One measured run; the server's CPU time is read from /proc around it. */
async function load(
  server: Server,
  endpoint: (typeof ENDPOINTS)[number],
  key: string,
): Promise<Measure> {
  const url = `${server.url}${endpoint.path}`;
  const headers = { authorization: `Bearer ${key}` };
  const { connections } = settings;
  const cpuBefore = cpuSeconds(server.process.pid);
  const result = await autocannon({
    url,
    headers,
    connections,
    duration: settings.durationSeconds,
  });
  const cpuSpent = cpuSeconds(server.process.pid) - cpuBefore;
  return {
    endpoint: endpoint.name,
    server: server.name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
    cpuMsPerRequest: result.requests.total > 0 ? (cpuSpent * 1000) / result.requests.total : 0,
  };
}

/**
 * Odd rounds in the order started, even rounds backwards: a server's place in the sequence (what
 * ran just before it, the neighbours' load drifting through the round) weighs on each alike.
 */
function inRoundOrder(servers: Server[], round: number): Server[] {
  return round % 2 === 1 ? servers : [...servers].reverse();
}

/** The servers profiled under BENCH_CPU_PROF: Herald (both builds), and the framework floor to hold it against. */
const PROFILED: readonly ServerName[] = ['herald', 'framework', 'before'];

/**
 * `node <preload> <main>`, as `npm run start:prod` runs Herald; under BENCH_CPU_PROF with
 * `--cpu-prof`, the profile named after the server, written when it exits on SIGUSR2.
 */
function serverArgs(name: ServerName, main: string, preload: string[] = []): string[] {
  const flags = HERALDS.includes(name) ? heraldNodeFlags() : [];
  if (!settings.cpuProfileDir || !PROFILED.includes(name)) return [...flags, ...preload, main];
  mkdirSync(settings.cpuProfileDir, { recursive: true });
  return [
    ...flags,
    '--cpu-prof',
    '--cpu-prof-dir',
    settings.cpuProfileDir,
    '--cpu-prof-name',
    `${name}-${process.pid}.cpuprofile`,
    ...preload,
    '-e',
    `process.on('SIGUSR2', () => process.exit(0)); require(${JSON.stringify(main)});`,
  ];
}

function report(runs: Measure[]): number {
  const ms = (value: number, digits = 1) => `${value.toFixed(digits)} ms`;
  const rounds = settings.rounds > 1 ? `, median of ${settings.rounds} rounds` : '';
  console.log(
    `\n${settings.connections} connections, ${settings.durationSeconds} s per run (after ${settings.warmupSeconds} s of warm-up per endpoint and server)${rounds}\n`,
  );
  console.log(
    `${'endpoint'.padEnd(15)}${'server'.padEnd(10)}${'req/s'.padStart(9)}${'p50'.padStart(10)}` +
      `${'p99'.padStart(10)}${'CPU/req'.padStart(10)}${'requests'.padStart(10)}${'failed'.padStart(8)}`,
  );
  const summary = new Map<string, Measure>();
  for (const endpoint of ENDPOINTS) {
    for (const server of SERVERS) {
      const mine = runs.filter((m) => m.endpoint === endpoint.name && m.server === server);
      if (mine.length === 0) continue;
      const m: Measure = {
        endpoint: endpoint.name,
        server,
        requestsPerSecond: median(mine.map((r) => r.requestsPerSecond)),
        p50: median(mine.map((r) => r.p50)),
        p99: median(mine.map((r) => r.p99)),
        cpuMsPerRequest: median(mine.map((r) => r.cpuMsPerRequest)),
        total: mine.reduce((sum, r) => sum + r.total, 0),
        failures: mine.reduce((sum, r) => sum + r.failures, 0),
      };
      summary.set(`${endpoint.name} ${server}`, m);
      console.log(
        `${m.endpoint.padEnd(15)}${m.server.padEnd(10)}${m.requestsPerSecond.toFixed(0).padStart(9)}` +
          `${ms(m.p50).padStart(10)}${ms(m.p99).padStart(10)}${ms(m.cpuMsPerRequest, 2).padStart(10)}` +
          `${String(m.total).padStart(10)}${String(m.failures).padStart(8)}`,
      );
    }
  }
  console.log('');
  let allMet = true;
  for (const endpoint of ENDPOINTS) {
    const baseline = summary.get(`${endpoint.name} baseline`);
    const framework = summary.get(`${endpoint.name} framework`);
    for (const name of HERALDS) {
      const herald = summary.get(`${endpoint.name} ${name}`);
      if (!baseline || !framework || !herald) continue;
      const share = herald.requestsPerSecond / baseline.requestsPerSecond;
      const overFramework = herald.cpuMsPerRequest / framework.cpuMsPerRequest;
      const met =
        overFramework <= TARGET_CPU_OVER_FRAMEWORK &&
        share >= TARGET_SHARE &&
        herald.failures === 0;
      if (name === 'herald') allMet &&= met;
      console.log(
        `${endpoint.name.padEnd(15)}${name === 'herald' ? 'Herald' : 'Herald before'}'s CPU per request = ${overFramework.toFixed(2)}× the framework floor's ` +
          `(target ≤ ${TARGET_CPU_OVER_FRAMEWORK}×), ${(herald.cpuMsPerRequest / baseline.cpuMsPerRequest).toFixed(2)}× the bare floor's; ` +
          `${(share * 100).toFixed(1)}% of the bare floor's req/s (target ≥ ${TARGET_SHARE * 100}%)` +
          `${herald.failures ? `, ${herald.failures} failed requests` : ''}: ${met ? 'met' : 'MISSED'}`,
      );
      if (settings.rounds > 1) console.log(roundByRound(runs, endpoint.name, name));
    }
  }
  console.log(allMet ? '\nAll targets met.' : '\nSome targets missed.');
  console.log(
    `Load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (other work skews the figures)`,
  );
  return summary.get('GET /projects baseline')?.cpuMsPerRequest ?? 0;
}

/**
 * Herald's CPU per request over the framework floor's in each round, the two measured back to back:
 * how far apart the rounds are says how much one run's ratio of medians can be trusted.
 */
function roundByRound(runs: Measure[], endpoint: string, herald: ServerName): string {
  const ratios: number[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const of = (server: ServerName) =>
      runs.find((m) => m.endpoint === endpoint && m.server === server && m.round === round);
    const [mine, framework] = [of(herald), of('framework')];
    if (mine && framework) ratios.push(mine.cpuMsPerRequest / framework.cpuMsPerRequest);
  }
  const list = ratios.map((ratio) => `${ratio.toFixed(2)}×`).join(', ');
  return `${''.padEnd(15)}round by round: ${list} (median ${median(ratios).toFixed(2)}×)`;
}

/**
 * Latency with an open-loop generator: request i is due at start + i / rate, and is started then
 * whether or not earlier ones have been answered (closed-loop tools and autocannon's rate option
 * send in bursts and wait on slow answers, which hides a server falling behind). Latency is counted
 * from the due time, so the generator's own lateness counts against the server too (never for it).
 */
async function openLoopLatency(
  servers: Server[],
  key: string,
  rate: number,
  why: string,
): Promise<void> {
  console.log(
    `\nOpen-loop latency: ${rate} req/s (${why}) on a fixed schedule for ${settings.durationSeconds} s, measured from each request's due time\n`,
  );
  console.log(
    `${'endpoint'.padEnd(15)}${'server'.padEnd(11)}${'sent'.padStart(7)}${'p50'.padStart(10)}${'p99'.padStart(10)}${'max'.padStart(10)}${'failed'.padStart(8)}${'CPU/req'.padStart(10)}${'gen late p99'.padStart(14)}${'gen CPU/req'.padStart(13)}  p99 ≤ ${TARGET_P99_MS} ms (Herald)`,
  );
  /** Each endpoint and server's p99 per round, for the medians printed after the rounds. */
  const p99s = new Map<string, { endpoint: string; server: ServerName; values: number[] }>();
  for (let round = 1; round <= settings.rounds; round++) {
    for (const endpoint of ENDPOINTS) {
      for (const server of inRoundOrder(servers, round)) {
        // At the same rate for every server, unlike closed-loop runs, whose throughput (and so
        // how much work each wake-up batches) moves with the machine's other load.
        const { latencies, failed, lateness, cpuMs, generatorCpuMs } = await openLoop(
          server,
          endpoint.path,
          key,
          rate,
        );
        const p = (q: number) => percentile(latencies, q).toFixed(1);
        const p99 = percentile(latencies, 99);
        const met = p99 <= TARGET_P99_MS && failed === 0;
        const series = p99s.get(`${endpoint.name} ${server.name}`) ?? {
          endpoint: endpoint.name,
          server: server.name,
          values: [],
        };
        series.values.push(failed ? Infinity : p99);
        p99s.set(`${endpoint.name} ${server.name}`, series);
        console.log(
          `${endpoint.name.padEnd(15)}${server.name.padEnd(11)}${String(latencies.length + failed).padStart(7)}` +
            `${`${p(50)} ms`.padStart(10)}${`${p(99)} ms`.padStart(10)}${`${p(100)} ms`.padStart(10)}${String(failed).padStart(8)}` +
            `${`${cpuMs.toFixed(2)} ms`.padStart(10)}${`${percentile(lateness, 99).toFixed(1)} ms`.padStart(14)}${`${generatorCpuMs.toFixed(2)} ms`.padStart(13)}  ${HERALDS.includes(server.name) ? (met ? 'met' : 'MISSED') : ''}`,
        );
      }
    }
  }
  if (settings.rounds > 1) {
    console.log(
      `\nMedian p99 of the ${settings.rounds} rounds (a round with failures counts as infinite)`,
    );
    for (const { endpoint, server, values } of p99s.values()) {
      const p99 = median(values);
      const verdict = HERALDS.includes(server) ? (p99 <= TARGET_P99_MS ? 'met' : 'MISSED') : '';
      console.log(
        `${endpoint.padEnd(15)}${server.padEnd(11)}${`${p99.toFixed(1)} ms`.padStart(10)}  ${verdict}`,
      );
    }
  }
  console.log(`Load average: ${loadavg()[0].toFixed(2)}`);
}

async function openLoop(
  server: Server,
  path: string,
  key: string,
  rate: number,
): Promise<{
  latencies: number[];
  failed: number;
  lateness: number[];
  /** The server's CPU per request. */
  cpuMs: number;
  generatorCpuMs: number;
}> {
  const target = new URL(`${server.url}${path}`);
  const pool = new Pool(target.origin, { connections: settings.connections, pipelining: 1 });
  // The same schedule, unrecorded, first: the run measures a server in its steady state, its
  // connections open and its heap grown, not the first second after the previous server's run,
  // when a process idle for seconds has given memory back (each page it touches again costs a
  // fault, ~15 µs on this VM) and the generator opens its connections one by one.
  if (settings.openLoopWarmupSeconds > 0)
    await schedule(pool, target.pathname, key, rate, settings.openLoopWarmupSeconds);
  const serverCpuBefore = cpuSeconds(server.process.pid);
  const cpuBefore = process.cpuUsage();
  const run = await schedule(pool, target.pathname, key, rate, settings.durationSeconds);
  const cpu = process.cpuUsage(cpuBefore);
  const serverCpuMs = (cpuSeconds(server.process.pid) - serverCpuBefore) * 1000;
  await pool.close();
  const total = run.latencies.length + run.failed;
  return {
    ...run,
    cpuMs: serverCpuMs / total,
    generatorCpuMs: (cpu.user + cpu.system) / 1000 / total,
  };
}

/** Requests on a fixed schedule: request i is due at start + i / rate, whatever the answers. */
async function schedule(
  pool: Pool,
  path: string,
  key: string,
  rate: number,
  seconds: number,
): Promise<{ latencies: number[]; failed: number; lateness: number[] }> {
  const total = Math.round(rate * seconds);
  const latencies: number[] = [];
  /** How late the generator itself started each request: its share of any latency. */
  const lateness: number[] = [];
  let failed = 0;
  const inFlight: Promise<void>[] = [];
  const start = performance.now() + 50;
  let next = 0;
  const fire = (due: number) => {
    lateness.push(performance.now() - due);
    return pool
      .request({ path, method: 'GET', headers: { authorization: `Bearer ${key}` } })
      .then(async (res) => {
        await res.body.dump();
        if (res.statusCode === 200) latencies.push(performance.now() - due);
        else failed++;
      })
      .catch(() => {
        failed++;
      });
  };
  await new Promise<void>((resolveAll) => {
    const tick = () => {
      const now = performance.now();
      // Start everything that is due, late ones included: the schedule never waits for answers.
      while (next < total && start + (next * 1000) / rate <= now)
        inFlight.push(fire(start + (next++ * 1000) / rate));
      if (next >= total) return resolveAll();
      // Sleep until the next one is due, never spin: a generator busy-waiting on setImmediate
      // takes a whole core of this 2-core machine from the servers it measures. Node's timers
      // fire up to ~1 ms late; that lateness is counted against the server and printed apart.
      setTimeout(tick, Math.max(0, start + (next * 1000) / rate - performance.now()));
    };
    tick();
  });
  await Promise.all(inFlight);
  return { latencies, failed, lateness };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * Herald alone: GET one post, and creates with and without Idempotency-Key (each
 * request its own key, as a client retrying safely sends). The two create loads alternate over
 * two rounds, so the table's growth weighs on both alike.
 */
async function postsBenchmark(herald: Server, key: string): Promise<void> {
  const admin = new Client({ connectionString: settings.adminDatabaseUrl });
  await admin.connect();
  try {
    await postsRuns(herald, key, admin);
  } finally {
    await admin.end();
  }
}

/**
 * CPU seconds used so far by the PostgreSQL backends serving the bench database (Herald's pool):
 * the database's side of a request, apart from the other work on a shared server.
 */
async function benchBackendsCpuSeconds(admin: Client): Promise<number> {
  const { rows } = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = $1',
    [settings.databaseName],
  );
  return rows.reduce((sum, { pid }) => sum + (cpuSeconds(pid) || 0), 0);
}

async function postsRuns(herald: Server, key: string, admin: Client): Promise<void> {
  const auth = { authorization: `Bearer ${key}` };
  const projects = (await (
    await fetch(`${herald.url}/api/public/v1/projects`, { headers: auth })
  ).json()) as {
    items: { id: number }[];
  };
  const projectId = projects.items[0]?.id;
  if (projectId === undefined) throw new Error('The seeded key sees no project');
  const postsUrl = `${herald.url}/api/public/v1/projects/${projectId}/posts`;
  const json = { ...auth, 'content-type': 'application/json' };
  const created = await fetch(postsUrl, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ text: 'Benchmark post' }),
  });
  if (created.status !== 201) throw new Error(`Creating a post answered ${created.status}`);
  const postId = ((await created.json()) as { id: number }).id;

  const measure = async (name: string, options: Parameters<typeof autocannon>[0]) => {
    const cpuBefore = cpuSeconds(herald.process.pid);
    const pgBefore = await benchBackendsCpuSeconds(admin);
    const result = await autocannon({
      connections: settings.connections,
      duration: settings.durationSeconds,
      ...options,
    });
    const cpuSpent = cpuSeconds(herald.process.pid) - cpuBefore;
    const pgSpent = (await benchBackendsCpuSeconds(admin)) - pgBefore;
    const failed = result.non2xx + result.errors + result.timeouts;
    const perRequest = (seconds: number) =>
      `${((seconds * 1000) / Math.max(1, result.requests.total)).toFixed(2)} ms`;
    console.log(
      `${name.padEnd(34)}${result.requests.average.toFixed(0).padStart(9)}${`${result.latency.p50} ms`.padStart(10)}` +
        `${`${result.latency.p99} ms`.padStart(10)}${perRequest(cpuSpent).padStart(10)}${perRequest(pgSpent).padStart(10)}${String(failed).padStart(8)}`,
    );
    const requests = Math.max(1, result.requests.total);
    return {
      requestsPerSecond: result.requests.average,
      cpuMs: (cpuSpent * 1000) / requests,
      pgCpuMs: (pgSpent * 1000) / requests,
      failed,
    };
  };
  let sequence = 0;
  const create = (withKey: boolean) => ({
    url: postsUrl,
    requests: [
      {
        method: 'POST',
        path: `/api/public/v1/projects/${projectId}/posts`,
        headers: json,
        body: JSON.stringify({ text: 'Benchmark create' }),
        setupRequest: (request: { headers?: Record<string, string> }) => {
          if (withKey)
            request.headers = { ...json, 'idempotency-key': `bench-${process.pid}-${++sequence}` };
          return request;
        },
      },
    ],
  });

  console.log(`
Posts API on Herald, ${settings.connections} connections, ${settings.durationSeconds} s per run
`);
  console.log(
    `${'load'.padEnd(34)}${'req/s'.padStart(9)}${'p50'.padStart(10)}${'p99'.padStart(10)}${'CPU/req'.padStart(10)}${'PG CPU'.padStart(10)}${'failed'.padStart(8)}`,
  );
  await autocannon({
    url: `${postsUrl}/${postId}`,
    headers: auth,
    connections: settings.connections,
    duration: settings.warmupSeconds,
  });
  const one = await measure('GET /posts/{post_id}', {
    url: `${postsUrl}/${postId}`,
    headers: auth,
  });
  await autocannon({
    connections: settings.connections,
    duration: settings.warmupSeconds,
    ...create(true),
  });
  type Run = Awaited<ReturnType<typeof measure>>;
  const without: Run[] = [];
  const withKey: Run[] = [];
  let failures = one.failed;
  for (let round = 1; round <= Math.max(2, settings.rounds); round++) {
    const plain = await measure(`POST /posts (round ${round})`, create(false));
    const keyed = await measure(`POST /posts + Idempotency-Key (${round})`, create(true));
    without.push(plain);
    withKey.push(keyed);
    failures += plain.failed + keyed.failed;
  }
  const med = (runs: Run[], field: 'requestsPerSecond' | 'cpuMs' | 'pgCpuMs') =>
    median(runs.map((run) => run[field]));
  const cost = 1 - med(withKey, 'requestsPerSecond') / med(without, 'requestsPerSecond');
  const extra = (field: 'cpuMs' | 'pgCpuMs') =>
    `+${(med(withKey, field) - med(without, field)).toFixed(2)} ms (${med(without, field).toFixed(2)} → ${med(withKey, field).toFixed(2)})`;
  console.log(
    `
Medians: without ${med(without, 'requestsPerSecond').toFixed(0)} req/s, with ${med(withKey, 'requestsPerSecond').toFixed(0)} req/s; ` +
      `the key adds Herald CPU ${extra('cpuMs')}, PostgreSQL CPU ${extra('pgCpuMs')} per create`,
  );
  console.log(
    `
Idempotency-Key costs ${(cost * 100).toFixed(1)}% of create throughput (target < ${MAX_IDEMPOTENCY_COST * 100}%)` +
      `${failures ? `, ${failures} failed requests` : ''}: ${cost < MAX_IDEMPOTENCY_COST && failures === 0 ? 'met' : 'MISSED'}`,
  );
  console.log(
    `Load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (other work skews the figures)`,
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Before loading, both servers must give the same answer, or the comparison means nothing. */
async function checkSameAnswers(servers: Server[], key: string): Promise<void> {
  for (const endpoint of ENDPOINTS) {
    const bodies = await Promise.all(
      servers.map(async (server) => {
        const response = await fetch(`${server.url}${endpoint.path}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        const body = await response.text();
        if (response.status !== 200)
          throw new Error(`${server.name} ${endpoint.name} answered ${response.status}: ${body}`);
        return body;
      }),
    );
    if (new Set(bodies).size !== 1)
      throw new Error(`The servers disagree on ${endpoint.name}:\n${bodies.join('\n')}`);
  }
}

function startServer(
  name: Server['name'],
  port: number,
  command: string,
  args: string[],
  childEnv: NodeJS.ProcessEnv,
  stdout: 'inherit' | number = 'inherit',
): Server {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', stdout, 'inherit'],
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && code !== null)
      console.error(`${name} exited with code ${code} (${signal ?? ''})`);
  });
  return { name, url: `http://127.0.0.1:${port}`, process: child };
}

async function stop(server: Server): Promise<void> {
  if (server.process.exitCode !== null || server.process.signalCode !== null) return;
  const exited = new Promise((resolveExit) => server.process.once('exit', resolveExit));
  const profiling = PROFILED.includes(server.name) && settings.cpuProfileDir !== null;
  server.process.kill(profiling ? 'SIGUSR2' : 'SIGTERM');
  const timer = setTimeout(() => server.process.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function run(command: string, args: string[], childEnv: NodeJS.ProcessEnv): string {
  const result = spawnSync(command, args, { cwd: ROOT, env: childEnv, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

async function recreateDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}

async function cleanUp(
  s: typeof settings,
  redisKeyPrefix: string,
  mediaDir: string,
): Promise<void> {
  rmSync(mediaDir, { recursive: true, force: true });
  const client = new Client({ connectionString: s.adminDatabaseUrl });
  await client.connect();
  await client
    .query(`DROP DATABASE IF EXISTS "${s.databaseName}" WITH (FORCE)`)
    .finally(() => client.end());
  // Only this run's keys (prefix and colon): `herald-bench-12*` would also match run 123's.
  await deleteRedisKeys(s.redisUrl, redisKeyPrefix);
}

main().catch((error: Error) => {
  console.error(`Benchmark failed: ${error.message}`);
  process.exitCode = 1;
});

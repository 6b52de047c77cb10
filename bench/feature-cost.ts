/**
 * What one feature of the request path costs: the "other" read run, GET /api/public/v1/projects,
 * against one Herald process with the feature on and off, 100 connections, 10 s each, after a
 * short warm-up. autocannon runs in a child process so that it does not share the server's event
 * loop. The server's CPU time per request is printed too (Redis's own CPU is not in it): on a
 * machine shared with other work, req/s swings with the neighbours' load, CPU per request much
 * less. Used by bench/throttler.ts and bench/metrics.ts.
 *
 * Needs the PostgreSQL and Redis of the tests (TEST_ADMIN_DATABASE_URL, TEST_REDIS_URL).
 */
import { NestExpressApplication } from '@nestjs/platform-express';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createHttpApp } from '../src/app.setup';
import { runCli } from '../src/operations/cli/commands';
import { AppConfig, loadConfig } from '../src/infrastructure/config/config';
import { dropTestDatabase } from '../test/support/databases';
import { deleteRedisKeys } from '../test/support/redis-keys';
import { createMigratedDatabase, TEST_APP_SECRET, TEST_REDIS_URL } from '../test/support/test-app';
import { postJson } from './support';

const CONNECTIONS = 100;
const DURATION_S = 10;
const WARM_UP_S = 5;
const AUTOCANNON = join(__dirname, '..', 'node_modules', 'autocannon', 'autocannon.js');
const run = promisify(execFile);

interface Outcome {
  requestsPerSecond: number;
  total: number;
  non2xx: number;
  errors: number;
  latencyP99: number;
  /** Server CPU (user + system) per request, in microseconds: steadier than req/s on a busy machine. */
  cpuMicrosPerRequest: number;
}

/** A feature whose cost is measured: the variables that turn it on or off, and its target. */
export interface Feature {
  /** A word for the output, e.g. `throttler`. */
  name: string;
  /** Highest acceptable cost in requests/s, in percent. */
  targetPercent: number;
  /** The variables that turn the feature on or off (rate limits stay on, raised out of the way). */
  env(enabled: boolean): Record<string, string>;
}

/** Measures `feature` on and off, `rounds` times each in alternating order, and prints the cost. */
export async function measureFeatureCost(feature: Feature, rounds: number): Promise<void> {
  const { name, url } = await createMigratedDatabase();
  const prefix = `herald-bench-${randomBytes(4).toString('hex')}`;
  const env = (enabled: boolean) =>
    loadConfig({
      DATABASE_URL: url,
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: prefix,
      APP_SECRET: TEST_APP_SECRET,
      LOG_LEVEL: 'silent',
      PORT: '0',
      RATE_LIMIT_OTHER: '1000000000',
      RATE_LIMIT_AUTH_FAILURES: '1000000000',
      ...feature.env(enabled),
    });
  try {
    const key = await seed(env(true));
    const results: Record<'off' | 'on', Outcome[]> = { off: [], on: [] };
    for (let round = 1; round <= rounds; round++) {
      // Alternate the order, so that a neighbour's load rising or falling favours neither mode.
      const order = round % 2 === 1 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const mode of order) {
        const outcome = await measure(env(mode === 'on'), key);
        results[mode].push(outcome);
        console.log(
          `round ${round} ${feature.name} ${mode.padEnd(3)}: ${outcome.requestsPerSecond.toFixed(0)} req/s ` +
            `(${outcome.total} requests, non-2xx ${outcome.non2xx}, errors ${outcome.errors}, p99 ${outcome.latencyP99} ms, ` +
            `server CPU ${outcome.cpuMicrosPerRequest.toFixed(0)} µs/request)`,
        );
      }
    }
    const mean = (list: Outcome[], of: (o: Outcome) => number) =>
      list.reduce((sum, o) => sum + of(o), 0) / list.length;
    const off = mean(results.off, (o) => o.requestsPerSecond);
    const on = mean(results.on, (o) => o.requestsPerSecond);
    const cost = ((off - on) / off) * 100;
    const cpuOff = mean(results.off, (o) => o.cpuMicrosPerRequest);
    const cpuOn = mean(results.on, (o) => o.cpuMicrosPerRequest);
    console.log(`machine load average (1 min) at the end: ${loadavg()[0].toFixed(2)}`);
    console.log(
      `without ${feature.name}: ${off.toFixed(0)} req/s, ${cpuOff.toFixed(0)} µs CPU/request`,
    );
    console.log(
      `with ${feature.name}:    ${on.toFixed(0)} req/s, ${cpuOn.toFixed(0)} µs CPU/request`,
    );
    console.log(`CPU cost per request: ${(((cpuOn - cpuOff) / cpuOff) * 100).toFixed(1)}%`);
    console.log(
      `cost: ${cost.toFixed(1)}% (target at most ${feature.targetPercent}%: ${cost <= feature.targetPercent ? 'met' : 'NOT met'})`,
    );
  } finally {
    await dropTestDatabase(name);
    await deleteRedisKeys(TEST_REDIS_URL, prefix);
  }
}

/** An administrator with three projects and an API key, made through the API and the CLI. */
async function seed(config: AppConfig): Promise<string> {
  const app = await createHttpApp(config);
  const base = await listen(app);
  try {
    const post = postJson(base);
    const email = `bench.${process.pid}@example.com`;
    const registered = await post('/api/auth/register', {
      email,
      password: 'correct horse battery',
      name: 'Bench',
    });
    const code = await runCli(['grant-admin', email], config, { out: () => undefined });
    if (code !== 0) throw new Error('grant-admin failed');
    const auth = `Bearer ${registered.token as string}`;
    for (const project of ['One', 'Two', 'Three']) {
      await post('/api/projects', { name: project, timezone: 'Europe/Berlin' }, auth);
    }
    return (await post('/api/api-keys', { name: 'bench' }, auth)).key as string;
  } finally {
    await app.close();
  }
}

async function measure(config: AppConfig, key: string): Promise<Outcome> {
  const app = await createHttpApp(config);
  const base = await listen(app);
  try {
    const target = `${base}/api/public/v1/projects`;
    await autocannon(target, key, WARM_UP_S);
    const cpuBefore = process.cpuUsage();
    const outcome = await autocannon(target, key, DURATION_S);
    const cpu = process.cpuUsage(cpuBefore);
    return { ...outcome, cpuMicrosPerRequest: (cpu.user + cpu.system) / outcome.total };
  } finally {
    await app.close();
  }
}

async function listen(app: NestExpressApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

async function autocannon(
  url: string,
  key: string,
  seconds: number,
): Promise<Omit<Outcome, 'cpuMicrosPerRequest'>> {
  const { stdout } = await run(
    process.execPath,
    [
      AUTOCANNON,
      '--json',
      '-c',
      String(CONNECTIONS),
      '-d',
      String(seconds),
      '-H',
      `Authorization=Bearer ${key}`,
      url,
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const result = JSON.parse(stdout) as {
    requests: { average: number; total: number };
    non2xx: number;
    errors: number;
    latency: { p99: number };
  };
  return {
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    latencyP99: result.latency.p99,
  };
}

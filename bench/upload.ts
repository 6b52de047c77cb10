/**
 * Upload benchmark: 10 concurrent multipart uploads of a 50 MB file to
 * POST /api/public/v1/projects/:id/media on Herald running in a child process, writing to local
 * disk. Prints MB/s and the service's peak RSS growth, sampled from /proc/<pid>/status, and the
 * service's CPU time (MB per CPU-second tells the cost apart from a busy machine's noise).
 * Target: peak RSS growth under 64 MB (memory flat with file size) and at least 150 MB/s.
 *
 *   npx ts-node --transpile-only bench/upload.ts
 *
 * Knobs: BENCH_UPLOADS (10), BENCH_FILE_MB (50), BENCH_ROUNDS (3), BENCH_ADMIN_DATABASE_URL,
 * BENCH_REDIS_URL, BENCH_CPU_PROF (a directory: the service, and the S3 stand-in, each write a
 * .cpuprofile there on exit). The service runs from the TypeScript sources (ts-node, transpile only), so no
 * build is needed; with BENCH_USE_DIST=1 it runs dist/src/main.js (after `npm run build`).
 * BENCH_STORAGE=s3 stores into S3-protocol servers on 127.0.0.1, each in a process of its own
 * (bench/s3-stand-in.ts), through the S3 driver instead of local disk: the lean stand-in
 * (bench/s3-lean-server.ts, which costs next to no CPU, as a bucket on another machine would), then
 * s3rver (the tests' server, which hashes and rewrites everything); BENCH_S3_SERVER=lean or s3rver
 * runs one. The RSS measured is still Herald's alone, and the stand-in's CPU is printed beside
 * Herald's. After each round every stored object is read back over S3 and its size and SHA-256
 * compared with what was sent. Then the same uploads go through the S3 driver alone, in this
 * process (no HTTP, no multipart parsing, no sniffing): the stand-in's own ceiling on this machine.
 * BENCH_DIST_DIR (default dist) names another build to run with BENCH_USE_DIST=1, e.g. a copy of
 * the previous one for a before/after comparison.
 */
import { cpuSeconds, freePort, waitUntilAnswers, withDatabase } from './support';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { request } from 'undici';
import type { AppConfig } from '../src/infrastructure/config/config';
import { buildDataSourceOptions } from '../src/infrastructure/database/data-source';
import type { StorageDriver } from '../src/infrastructure/storage/storage-driver';
import { generatedBytes, postMultipart } from '../test/support/factories/media-helpers';

const ROOT = resolve(__dirname, '..');
const MB = 1024 * 1024;
const env = process.env;
const settings = {
  adminDatabaseUrl: env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  redisUrl: env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  uploads: Number(env.BENCH_UPLOADS ?? 10),
  fileBytes: Number(env.BENCH_FILE_MB ?? 50) * MB,
  rounds: Number(env.BENCH_ROUNDS ?? 3),
  useDist: env.BENCH_USE_DIST === '1',
  distDir: resolve(ROOT, env.BENCH_DIST_DIR ?? 'dist'),
  storage: env.BENCH_STORAGE === 's3' ? 's3' : 'local',
  s3StandIns: (env.BENCH_S3_SERVER ? [env.BENCH_S3_SERVER] : ['lean', 's3rver']) as StandInKind[],
};
type StandInKind = 'lean' | 's3rver';
const TARGET_RSS_GROWTH_MB = 64;
const TARGET_MB_PER_SECOND = 150;
const PNG_SIGNATURE = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

async function main(): Promise<void> {
  const databaseName = `herald_bench_upload_${process.pid}`;
  const databaseUrl = withDatabase(settings.adminDatabaseUrl, databaseName);
  await admin((db) => db.query(`CREATE DATABASE "${databaseName}"`));
  try {
    await migrate(databaseUrl);
    for (const standIn of settings.storage === 's3' ? settings.s3StandIns : [undefined])
      await benchmark(databaseUrl, standIn);
  } finally {
    await admin((db) => db.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`));
  }
}

/** Herald on local disk, or on the S3 stand-in `standIn`: the rounds, then the driver alone. */
async function benchmark(databaseUrl: string, standIn: StandInKind | undefined): Promise<void> {
  const mediaDir = mkdtempSync(join(tmpdir(), 'herald-bench-media-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const s3 = standIn ? await startS3StandIn(standIn) : undefined;
  try {
    child = startHerald(port, databaseUrl, mediaDir, s3?.env ?? {});
    await waitUntilAnswers(`${base}/health/live`, child, 'Herald');
    const { key, projectId } = await seed(base, databaseUrl);
    const url = `${base}/api/public/v1/projects/${projectId}/media`;

    // Warm-up: one small and one full-size upload, so JIT and pools are settled before measuring.
    await upload(url, key, 1 * MB);
    await upload(url, key, settings.fileBytes);
    await s3?.empty();
    await sleep(500);

    console.log(
      `Herald upload benchmark: ${settings.uploads} concurrent uploads of ${settings.fileBytes / MB} MB, ` +
        `${settings.rounds} rounds, service pid ${child.pid} (${settings.useDist ? 'dist' : 'ts-node'}), ` +
        (standIn ? `S3 storage, ${standIn} stand-in` : 'local storage'),
    );
    const startRss = rssBytes(child.pid!);
    let overallPeak = startRss;
    for (let round = 1; round <= settings.rounds; round++) {
      const baseline = rssBytes(child.pid!);
      const cpuBefore = cpuSeconds(child.pid!);
      const s3CpuBefore = cpuSeconds(s3?.child.pid);
      const ownCpuBefore = ownCpuSeconds();
      const sampler = sampleRss(child.pid!);
      const loadBefore = loadAverage();
      const started = process.hrtime.bigint();
      const results = await Promise.all(
        Array.from({ length: settings.uploads }, () => upload(url, key, settings.fileBytes)),
      );
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const peak = sampler.stop();
      const serverCpu = cpuSeconds(child.pid!) - cpuBefore;
      const s3Cpu = cpuSeconds(s3?.child.pid) - s3CpuBefore;
      const ownCpu = ownCpuSeconds() - ownCpuBefore;
      overallPeak = Math.max(overallPeak, peak);
      const failed = results.filter((r) => r.status !== 201 || r.size !== settings.fileBytes);
      const totalMb = (settings.uploads * settings.fileBytes) / MB;
      const growthMb = (peak - baseline) / MB;
      const mbPerSecond = totalMb / seconds;
      console.log(
        `round ${round}: ${totalMb} MB in ${seconds.toFixed(2)} s = ${mbPerSecond.toFixed(1)} MB/s; ` +
          `RSS baseline ${(baseline / MB).toFixed(1)} MB, peak ${(peak / MB).toFixed(1)} MB, ` +
          `growth ${growthMb.toFixed(1)} MB; service CPU ${serverCpu.toFixed(2)} s ` +
          `(${(totalMb / serverCpu).toFixed(0)} MB per CPU-second)` +
          (s3 ? `, S3 stand-in CPU ${s3Cpu.toFixed(2)} s` : '') +
          `, client CPU ${ownCpu.toFixed(2)} s; load ${loadBefore} -> ${loadAverage()}; failures ${failed.length}` +
          ` [targets: >= ${TARGET_MB_PER_SECOND} MB/s ${mbPerSecond >= TARGET_MB_PER_SECOND ? 'met' : 'MISSED'}, ` +
          `< ${TARGET_RSS_GROWTH_MB} MB growth ${growthMb < TARGET_RSS_GROWTH_MB ? 'met' : 'MISSED'}]`,
      );
      rmSync(join(mediaDir, 'projects'), { recursive: true, force: true });
      await s3?.checkAndEmpty(settings.uploads);
    }
    console.log(
      `overall: RSS after warm-up ${(startRss / MB).toFixed(1)} MB, peak over all rounds ` +
        `${(overallPeak / MB).toFixed(1)} MB, growth ${((overallPeak - startRss) / MB).toFixed(1)} MB`,
    );
    child.kill('SIGTERM');
    await once(child, 'exit');
    if (s3) await driverAlone(s3);
  } finally {
    if (child?.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(mediaDir, { recursive: true, force: true });
    await s3?.stop();
  }
}

interface S3StandIn {
  child: ChildProcess;
  env: Record<string, string>;
  empty(): Promise<void>;
  /**
   * Fails unless the bucket holds `count` objects, each the size and SHA-256 of what every upload
   * sends (so a stand-in that dropped or mangled bytes cannot pass for a fast one); then empties it.
   */
  checkAndEmpty(count: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts bench/s3-stand-in.ts in a child process and reads the variables it prints. */
async function startS3StandIn(kind: StandInKind): Promise<S3StandIn> {
  const child = spawn(
    process.execPath,
    [
      ...profileArgs(),
      '-r',
      'ts-node/register/transpile-only',
      join(ROOT, 'bench/s3-stand-in.ts'),
      kind,
    ],
    {
      cwd: ROOT,
      env: { ...env, TS_NODE_TRANSPILE_ONLY: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const s3Env = JSON.parse(line) as Record<string, string>;
  const client = new S3Client({
    region: s3Env.S3_REGION,
    endpoint: s3Env.S3_ENDPOINT,
    forcePathStyle: true,
    credentials: {
      accessKeyId: s3Env.S3_ACCESS_KEY_ID,
      secretAccessKey: s3Env.S3_SECRET_ACCESS_KEY,
    },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = s3Env.S3_BUCKET;
  const expected = await digest(Readable.from(generatedBytes(PNG_SIGNATURE, settings.fileBytes)));
  const keys = async () =>
    ((await client.send(new ListObjectsV2Command({ Bucket }))).Contents ?? []).map(
      ({ Key }) => Key as string,
    );
  const standIn: S3StandIn = {
    child,
    env: s3Env,
    async empty() {
      for (let page = await keys(); page.length > 0; page = await keys())
        for (const Key of page) await client.send(new DeleteObjectCommand({ Bucket, Key }));
    },
    async checkAndEmpty(count) {
      const stored = await keys();
      if (stored.length !== count)
        throw new Error(`The stand-in holds ${stored.length} objects, not ${count}`);
      for (const Key of stored) {
        const { Body } = await client.send(new GetObjectCommand({ Bucket, Key }));
        const found = await digest(Body as Readable);
        if (found.size !== expected.size || found.sha256 !== expected.sha256)
          throw new Error(
            `${Key}: ${found.size} bytes, SHA-256 ${found.sha256}; sent ${expected.size} bytes, ${expected.sha256}`,
          );
      }
      await standIn.empty();
    },
    async stop() {
      client.destroy();
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
  return standIn;
}

/**
 * The same uploads through the S3 driver alone, in this process: what the stand-in allows on this
 * machine with nothing of Herald's in the way (no HTTP, no multipart parsing, no sniffing).
 */
async function driverAlone(s3: S3StandIn): Promise<void> {
  const module = (
    settings.useDist
      ? // eslint-disable-next-line @typescript-eslint/no-require-imports
        require(join(settings.distDir, 'src/infrastructure/storage/s3.storage.js'))
      : // eslint-disable-next-line @typescript-eslint/no-require-imports
        require('../src/infrastructure/storage/s3.storage')
  ) as { S3Storage: new (config: AppConfig) => StorageDriver & { onApplicationShutdown(): void } };
  const driver = new module.S3Storage({
    publicBaseUrl: 'http://127.0.0.1',
    s3: {
      bucket: s3.env.S3_BUCKET,
      region: s3.env.S3_REGION,
      endpoint: s3.env.S3_ENDPOINT,
      accessKeyId: s3.env.S3_ACCESS_KEY_ID,
      secretAccessKey: s3.env.S3_SECRET_ACCESS_KEY,
      forcePathStyle: true,
    },
  } as AppConfig);
  const put = (i: number) =>
    driver.put(
      `projects/1/bench-${i}.png`,
      Readable.from(generatedBytes(PNG_SIGNATURE, settings.fileBytes)),
      'image/png',
    );
  await put(0);
  await s3.empty();
  console.log(`the S3 driver alone, in the benchmark's process, into the same stand-in:`);
  try {
    for (let round = 1; round <= settings.rounds; round++) {
      const s3CpuBefore = cpuSeconds(s3.child.pid);
      const ownCpuBefore = ownCpuSeconds();
      const loadBefore = loadAverage();
      const started = process.hrtime.bigint();
      await Promise.all(Array.from({ length: settings.uploads }, (_, i) => put(i)));
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const totalMb = (settings.uploads * settings.fileBytes) / MB;
      console.log(
        `round ${round}: ${totalMb} MB in ${seconds.toFixed(2)} s = ${(totalMb / seconds).toFixed(1)} MB/s; ` +
          `S3 stand-in CPU ${(cpuSeconds(s3.child.pid) - s3CpuBefore).toFixed(2)} s, ` +
          `driver + generator CPU ${(ownCpuSeconds() - ownCpuBefore).toFixed(2)} s; ` +
          `load ${loadBefore} -> ${loadAverage()}`,
      );
      await s3.checkAndEmpty(settings.uploads);
    }
  } finally {
    driver.onApplicationShutdown();
  }
}

async function digest(bytes: Readable): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of bytes) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, sha256: hash.digest('hex') };
}

/** Node's options that write a CPU profile into BENCH_CPU_PROF on exit, when it is set. */
function profileArgs(): string[] {
  return env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${resolve(env.BENCH_CPU_PROF)}`] : [];
}

function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
}

function startHerald(
  port: number,
  databaseUrl: string,
  mediaDir: string,
  storageEnv: Record<string, string>,
): ChildProcess {
  const args = settings.useDist
    ? [join(settings.distDir, 'src/main.js')]
    : ['-r', 'ts-node/register/transpile-only', join(ROOT, 'src/main.ts')];
  const child = spawn(process.execPath, [...profileArgs(), ...args], {
    cwd: ROOT,
    env: {
      ...env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      REDIS_URL: settings.redisUrl,
      REDIS_KEY_PREFIX: `herald-bench-${randomBytes(4).toString('hex')}`,
      APP_SECRET: randomBytes(32).toString('hex'),
      MEDIA_STORAGE_DIR: mediaDir,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
      APP_ROLE: 'api',
      RATE_LIMIT_UPLOAD: '1000000',
      TS_NODE_TRANSPILE_ONLY: '1',
      ...storageEnv,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return child;
}

/** Streams one multipart upload of `size` generated bytes (a PNG signature, then zeros). */
async function upload(
  url: string,
  key: string,
  size: number,
): Promise<{ status: number; size: number }> {
  const { status, body } = await postMultipart(url, key, [
    {
      field: 'files',
      filename: 'bench.png',
      contentType: 'image/png',
      content: { size, chunks: () => generatedBytes(PNG_SIGNATURE, size) },
    },
  ]);
  const items = body.items as { size_bytes: number }[] | undefined;
  return { status, size: items?.[0]?.size_bytes ?? -1 };
}

async function seed(
  base: string,
  databaseUrl: string,
): Promise<{ key: string; projectId: number }> {
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
  const registered = await json(`${base}/api/auth/register`, 'POST', undefined, {
    email,
    password: 'correct horse battery staple',
    name: 'Bench',
  });
  const token = (registered as { token: string }).token;
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  await db.query('UPDATE users SET is_admin = true WHERE email = $1', [email]);
  await db.end();
  const project = (await json(`${base}/api/projects`, 'POST', token, {
    name: 'Bench',
    timezone: 'UTC',
  })) as { id: number };
  const key = (await json(`${base}/api/api-keys`, 'POST', token, { name: 'bench' })) as {
    key: string;
  };
  return { key: key.key, projectId: project.id };
}

async function json(
  url: string,
  method: string,
  token: string | undefined,
  body: object,
): Promise<unknown> {
  const res = await request(url, {
    method: method as 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const answer = await res.body.json();
  if (res.statusCode >= 300)
    throw new Error(`${method} ${url}: ${res.statusCode} ${JSON.stringify(answer)}`);
  return answer;
}

function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/** Samples the child's RSS every 5 ms; `stop()` returns the peak seen. */
function sampleRss(pid: number): { stop(): number } {
  let peak = rssBytes(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssBytes(pid));
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssBytes(pid));
    },
  };
}

async function migrate(databaseUrl: string): Promise<void> {
  const source = new DataSource(
    buildDataSourceOptions(databaseUrl, join(ROOT, 'migrations', '*.ts')),
  );
  await source.initialize();
  try {
    await source.runMigrations({ transaction: 'each' });
  } finally {
    await source.destroy();
  }
}

async function admin<T>(work: (db: Client) => Promise<T>): Promise<T> {
  const db = new Client({ connectionString: settings.adminDatabaseUrl });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

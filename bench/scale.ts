/**
 * Scale benchmark: the operations whose cost could grow with the tables, measured at 10,000 posts
 * and again at 3,000,000 (2,000,000 in the measured project, 1,000,000 across 100 other tenants,
 * about 2.9M targets), each size on a fresh Herald process; prints p50/p95, Herald's and
 * PostgreSQL's CPU per request at both sizes and their ratio. Target: every ratio ≤ 1.5. Then the
 * time of a migration that builds an index on the 3M-row posts table, and the longest insert into
 * that table while it ran.
 *
 *   npm run build && npm run bench:scale
 *
 * The data is loaded with SQL (one INSERT … SELECT generate_series per table), then VACUUM ANALYZE.
 * See bench/README.md for the knobs.
 */
import {
  cpuSeconds,
  freePort,
  heraldNodeFlags,
  postJson,
  sampleDatabaseBackends,
  waitUntilAnswers,
  withDatabase,
} from './support';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { deleteRedisKeys } from '../test/support/redis-keys';

const ROOT = resolve(__dirname, '..');
const env = process.env;
/** The build to measure; an earlier one's dist/ (with a node_modules link) for the figures before a change. */
const DIST = resolve(env.BENCH_DIST_DIR ?? join(ROOT, 'dist'));
const TYPEORM_CLI = join(ROOT, 'node_modules/typeorm/cli.js');
/** Where Herald and the CLI start: an empty directory, so no `.env` configures them behind the run's back. */
const WORKDIR = mkdtempSync(join(tmpdir(), 'herald-scale-cwd-'));

const settings = {
  adminDatabaseUrl: env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  databaseName: env.BENCH_DATABASE_NAME ?? 'herald_scale',
  redisUrl: env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  /** Measured requests per operation and size. */
  requests: Number(env.BENCH_REQUESTS ?? 200),
  /** Unmeasured requests per operation first, on the same process. */
  warmup: Number(env.BENCH_WARMUP ?? 10),
  smallPosts: Number(env.BENCH_SMALL_POSTS ?? 10_000),
  bigPosts: Number(env.BENCH_BIG_POSTS ?? 2_000_000),
  otherProjects: Number(env.BENCH_OTHER_PROJECTS ?? 100),
  postsPerOtherProject: Number(env.BENCH_OTHER_POSTS ?? 10_000),
  /** Targets on the channel of each deleted account, and of each deleted channel, at both sizes. */
  targetsPerDeleted: Number(env.BENCH_DELETED_TARGETS ?? 100),
};

const TARGET_RATIO = 1.5;
/** Channels of the measured project's own bot; each post has one target on one of them. */
const PROJECT_CHANNELS = 10;
/** Every 30th post has no target: about 2.9M targets for 3M posts. */
const NO_TARGET_EVERY = 30;
/** One post in 200 (0.5%) of a project is failed, where the run asks for that. */
const FAILED_EVERY = 200;
const CHANNELS_PER_DELETED_ACCOUNT = 20;
const NAME_WIDTH = 52;
const STATUS_INDEX = 'IDX_e0c3994e38a88e9fe30becd5bb';
const STATUS_INDEX_MIGRATION = 'IndexesForForeignKeysAndStatusFilter1795430000000';

interface Figures {
  p50: number;
  p95: number;
  heraldCpuMs: number;
  databaseCpuMs: number;
  /** Calls that failed (an answer other than 2xx, or the statement's error); their time counts. */
  failed: number;
}

type Size = 'small' | 'big';

interface World {
  db: Client;
  admin: Client;
  userId: number;
  projectId: number;
  key: string;
  session: string;
  heraldEnv: NodeJS.ProcessEnv;
  url: string;
}

async function main(): Promise<void> {
  for (const file of ['src/main.js', 'ormconfig.js']) {
    if (!existsSync(join(DIST, file)))
      throw new Error(`${join(DIST, file)} is missing: run npm run build first`);
  }
  console.log(
    `Herald scale benchmark: ${cpus().length} CPU(s) (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, build ${DIST}`,
  );
  console.log(
    `Load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const databaseUrl = withDatabase(settings.adminDatabaseUrl, settings.databaseName);
  const redisKeyPrefix = `herald-scale-${process.pid}`;
  const mediaDir = mkdtempSync(join(tmpdir(), 'herald-scale-'));
  const port = await freePort();
  const heraldEnv: NodeJS.ProcessEnv = {
    ...env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    REDIS_URL: settings.redisUrl,
    REDIS_KEY_PREFIX: redisKeyPrefix,
    APP_SECRET: randomBytes(32).toString('hex'),
    APP_ROLE: 'api',
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    MEDIA_STORAGE_DIR: mediaDir,
    LOG_LEVEL: 'info',
    RATE_LIMIT_ENABLED: 'false',
    RATE_LIMIT_OTHER: '1000000000',
    APP_RATE_LIMIT_PER_MINUTE: '1000000000',
  };

  const admin = new Client({ connectionString: settings.adminDatabaseUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${settings.databaseName}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${settings.databaseName}"`);
  run([TYPEORM_CLI, 'migration:run', '-d', join(DIST, 'ormconfig.js')], heraldEnv);
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const logPath = join(mediaDir, 'herald.log');
  const log = openSync(logPath, 'w');
  const results = new Map<string, Partial<Record<Size, Figures>>>();
  try {
    const world = await seed({ db, admin, heraldEnv, url: `http://127.0.0.1:${port}` }, log);

    console.log(`\nLoading ${settings.smallPosts.toLocaleString('en')} posts`);
    await timed('loaded', () => loadProjectPosts(world, 0, settings.smallPosts));
    const small = await measureSize(world, 'small', settings.smallPosts, log, results);

    const others = settings.otherProjects * settings.postsPerOtherProject;
    console.log(
      `\nLoading up to ${settings.bigPosts.toLocaleString('en')} posts in the project and ${others.toLocaleString('en')} across ${settings.otherProjects} other projects`,
    );
    await timed('loaded', async () => {
      await loadProjectPosts(world, settings.smallPosts, settings.bigPosts);
      await loadOtherTenants(world);
    });
    const big = await measureSize(world, 'big', settings.bigPosts, log, results);

    report(results, { small, big });
    await migrationOnBigTable(world);
  } finally {
    closeSync(log);
    await db.end();
    await admin.query(`DROP DATABASE IF EXISTS "${settings.databaseName}" WITH (FORCE)`);
    await admin.end();
    await deleteRedisKeys(settings.redisUrl, redisKeyPrefix);
    rmSync(mediaDir, { recursive: true, force: true });
    rmSync(WORKDIR, { recursive: true, force: true });
  }
}

/** The measuring user (an administrator) with a session, an API key and the measured project. */
async function seed(
  base: Pick<World, 'db' | 'admin' | 'heraldEnv' | 'url'>,
  log: number,
): Promise<World> {
  const herald = await startHerald(base.heraldEnv, base.url, log);
  try {
    const post = postJson(base.url);
    const email = `scale-${process.pid}@bench.local`;
    const registered = (await post('/api/auth/register', {
      email,
      password: 'a long bench password',
      name: 'Scale bench',
    })) as { token: string; user: { id: number } };
    const session = `Bearer ${registered.token}`;
    await base.db.query('UPDATE users SET is_admin = true WHERE id = $1', [registered.user.id]);
    const { key } = (await post('/api/api-keys', { name: 'scale bench' }, session)) as {
      key: string;
    };
    const project = (await post(
      '/api/projects',
      { name: 'Measured project', timezone: 'UTC' },
      session,
    )) as { id: number };
    const world: World = {
      ...base,
      userId: registered.user.id,
      projectId: project.id,
      key: `Bearer ${key}`,
      session,
    };
    const account = await insertAccount(world, project.id, 'measured');
    await base.db.query(
      `INSERT INTO channels (project_id, account_id, platform, channel_id, title)
       SELECT $1, $2, 'telegram', (-1001000000000 - g)::text, 'Channel ' || g
         FROM generate_series(1, $3::int) g`,
      [project.id, account, PROJECT_CHANNELS],
    );
    return world;
  } finally {
    await stop(herald);
  }
}

async function insertAccount(world: World, projectId: number, name: string): Promise<number> {
  const { rows } = await world.db.query<{ id: number }>(
    `INSERT INTO accounts (project_id, platform, external_id, title, credentials_encrypted)
     VALUES ($1, 'telegram', $2, $2, 'never decrypted by this benchmark') RETURNING id`,
    [projectId, name],
  );
  return rows[0].id;
}

/**
 * Posts `from + 1` to `to` of the measured project, one a second up to about a minute ago
 * (published, each but every 30th with one published target on one of the project's channels).
 */
async function loadProjectPosts(world: World, from: number, to: number): Promise<void> {
  const { rows } = await world.db.query<{ max: number | null }>('SELECT max(id) FROM posts');
  const firstId = (rows[0].max ?? 0) + 1;
  await world.db.query(
    `INSERT INTO posts (project_id, created_by_user_id, text, status, publish_attempt, published_at,
                        created_at, updated_at, test)
     SELECT $1, $2, 'Bench post ' || g, 'published', 1, t, t, t, false
       FROM generate_series($3::int + 1, $4::int) g,
            LATERAL (SELECT now() - interval '60 seconds' - ($5::int - g) * interval '1 second' AS t) x`,
    [world.projectId, world.userId, from, to, settings.bigPosts],
  );
  await insertTargets(world, `p.project_id = ${world.projectId} AND p.id >= ${firstId}`);
}

/** One published target for each post the condition names but every 30th, on a channel of its project's bot. */
async function insertTargets(world: World, condition: string): Promise<void> {
  await world.db.query(
    `WITH ch AS (SELECT project_id, array_agg(id ORDER BY id) AS ids FROM channels
                  WHERE account_id IN (SELECT min(id) FROM accounts GROUP BY project_id)
                  GROUP BY project_id)
     INSERT INTO post_targets (post_id, channel_id, platform, account_id, chat_id, position, status,
                               message_ids, steps_done, published_at)
     SELECT p.id, c.id, c.platform, c.account_id, c.channel_id, 0, 'published', '[1]', 1, p.created_at
       FROM posts p
       JOIN ch ON ch.project_id = p.project_id
       JOIN channels c ON c.id = ch.ids[1 + p.id % cardinality(ch.ids)]
      WHERE ${condition} AND p.id % ${NO_TARGET_EVERY} <> 0`,
  );
}

/**
 * The other tenants: each a user of its own with a project, a bot with 5 channels and its posts
 * (0.5% of them failed), spread over the same weeks; the measuring user is a member of two.
 */
async function loadOtherTenants(world: World): Promise<void> {
  const n = settings.otherProjects;
  await world.db.query(
    `INSERT INTO users (email, name, password_hash)
     SELECT 'tenant-' || g || '@bench.local', 'Tenant ' || g, 'no sign-in' FROM generate_series(1, $1::int) g`,
    [n],
  );
  await world.db.query(
    `INSERT INTO projects (name, timezone, owner_id)
     SELECT 'Tenant ' || u.id, 'UTC', u.id FROM users u WHERE u.email LIKE 'tenant-%@bench.local' ORDER BY u.id`,
  );
  const others = `SELECT id FROM projects WHERE name LIKE 'Tenant %'`;
  await world.db.query(
    `INSERT INTO accounts (project_id, platform, external_id, title, credentials_encrypted)
     SELECT id, 'telegram', 'tenant-' || id, 'Tenant bot', 'unused' FROM (${others}) p`,
  );
  await world.db.query(
    `INSERT INTO channels (project_id, account_id, platform, channel_id, title)
     SELECT a.project_id, a.id, 'telegram', (-1002000000000 - g)::text, 'Tenant channel ' || g
       FROM accounts a, generate_series(1, 5) g
      WHERE a.project_id IN (${others})`,
  );
  const { rows } = await world.db.query<{ max: number }>('SELECT max(id) FROM posts');
  const firstId = rows[0].max + 1;
  await world.db.query(
    `INSERT INTO posts (project_id, created_by_user_id, text, status, publish_attempt, published_at,
                        created_at, updated_at, test)
     SELECT p.id, p.owner_id, 'Tenant post ' || g,
            CASE WHEN g % ${FAILED_EVERY} = 0 THEN 'failed' ELSE 'published' END, 1, t, t, t, false
       FROM projects p, generate_series(1, $1::int) g,
            LATERAL (SELECT now() - interval '60 seconds' - ($1::int - g) * interval '200 seconds' AS t) x
      WHERE p.name LIKE 'Tenant %'`,
    [settings.postsPerOtherProject],
  );
  await insertTargets(world, `p.id >= ${firstId}`);
  await world.db.query(
    `INSERT INTO project_members (project_id, user_id, role, can_view_content, can_edit_content,
                                  can_publish, can_use_ai, can_manage_templates, can_view_analytics,
                                  can_manage_accounts, can_manage_team, can_manage_settings)
     SELECT id, $1, 'editor', true, true, true, true, true, true, true, true, true
       FROM (${others} ORDER BY id LIMIT 2) p`,
    [world.userId],
  );
}

/**
 * What the deletes remove, the same at both sizes: accounts of the measured project with 20
 * channels each, the first of which has `targetsPerDeleted` targets (1% of the project's at 10k
 * posts), and channels with as many targets each. Returns the account and channel ids.
 */
async function loadDeleted(
  world: World,
  posts: number,
): Promise<{ accounts: number[]; channels: number[] }> {
  const count = settings.warmup + settings.requests;
  const { rows: accounts } = await world.db.query<{ id: number }>(
    `INSERT INTO accounts (project_id, platform, external_id, title, credentials_encrypted)
     SELECT $1, 'telegram', 'deleted-' || $2::text || '-' || g, 'Deleted bot ' || g, 'unused'
       FROM generate_series(1, $3::int) g RETURNING id`,
    [world.projectId, `${Date.now()}`, count + 1],
  );
  const holder = accounts.pop()!.id;
  const ids = accounts.map((a) => a.id);
  await world.db.query(
    `INSERT INTO channels (project_id, account_id, platform, channel_id, title)
     SELECT $1, a, 'telegram', (-1003000000000 - g)::text, 'Deleted channel ' || g
       FROM unnest($2::int[]) a, generate_series(1, $3::int) g`,
    [world.projectId, ids, CHANNELS_PER_DELETED_ACCOUNT],
  );
  const { rows: channels } = await world.db.query<{ id: number }>(
    `INSERT INTO channels (project_id, account_id, platform, channel_id, title)
     SELECT $1, $2, 'telegram', (-1004000000000 - g)::text, 'Deleted channel ' || g
       FROM generate_series(1, $3::int) g RETURNING id`,
    [world.projectId, holder, count],
  );
  // Targets on the project's posts, taken in turn: the k-th deleted channel's n-th target is on
  // the (k × targetsPerDeleted + n)-th post, counted from the newest, wrapping round.
  const { rows: newest } = await world.db.query<{ max: number }>(
    'SELECT max(id) FROM posts WHERE project_id = $1',
    [world.projectId],
  );
  await world.db.query(
    `WITH chosen AS (
       SELECT c.id AS channel_id, c.account_id, c.channel_id AS chat_id, c.ord
         FROM (SELECT ch.*, row_number() OVER (ORDER BY ch.id) - 1 AS ord FROM channels ch
                WHERE ch.id IN (SELECT min(id) FROM channels WHERE account_id = ANY($1::int[]) GROUP BY account_id)
                   OR ch.id = ANY($2::int[])) c)
     INSERT INTO post_targets (post_id, channel_id, platform, account_id, chat_id, position, status,
                               message_ids, steps_done, published_at)
     SELECT $3::int - ((chosen.ord * $4::int + n) % $5::int), chosen.channel_id, 'telegram',
            chosen.account_id, chosen.chat_id, 1, 'published', '[2]', 1, now()
       FROM chosen, generate_series(0, $4::int - 1) n`,
    [ids, channels.map((c) => c.id), newest[0].max, settings.targetsPerDeleted, posts],
  );
  return { accounts: ids, channels: channels.map((c) => c.id) };
}

async function measureSize(
  world: World,
  size: Size,
  posts: number,
  log: number,
  results: Map<string, Partial<Record<Size, Figures>>>,
): Promise<string> {
  const deleted = await loadDeleted(world, posts);
  await timed('VACUUM ANALYZE', () => world.db.query('VACUUM ANALYZE'));
  const counts = await world.db.query<{ posts: string; targets: string }>(
    `SELECT (SELECT count(*) FROM posts) AS posts, (SELECT count(*) FROM post_targets) AS targets`,
  );
  console.log(
    `${Number(counts.rows[0].posts).toLocaleString('en')} posts, ${Number(counts.rows[0].targets).toLocaleString('en')} targets; a fresh Herald process`,
  );
  const herald = await startHerald(world.heraldEnv, world.url, log);
  const record = (name: string, figures: Figures) => {
    results.set(name, { ...results.get(name), [size]: figures });
    console.log(
      `  ${name.padEnd(NAME_WIDTH)} p50 ${ms(figures.p50)}  p95 ${ms(figures.p95)}  CPU Herald ${ms(figures.heraldCpuMs, 2)} + PostgreSQL ${ms(figures.databaseCpuMs, 2)}${figures.failed ? `  ${figures.failed} FAILED` : ''}`,
    );
  };
  try {
    const list = `/api/public/v1/projects/${world.projectId}/posts`;
    const get = (path: string) => () => call(world.url, 'GET', path, world.key);
    const { rows: some } = await world.db.query<{ id: number }>(
      `SELECT id FROM posts WHERE project_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2`,
      [world.projectId, Math.floor(posts / 2)],
    );
    record(
      'GET …/posts?status=failed (none failed)',
      await measure(herald, world, () => get(`${list}?status=failed`)),
    );
    record('GET /usage', await measure(herald, world, () => get('/api/public/v1/usage')));
    record('GET /projects', await measure(herald, world, () => get('/api/public/v1/projects')));
    record('GET …/posts (first page)', await measure(herald, world, () => get(list)));
    record('GET …/posts/:id', await measure(herald, world, () => get(`${list}/${some[0].id}`)));
    const accounts = [...deleted.accounts];
    record(
      `DELETE /api/accounts/:id (20 channels, ${settings.targetsPerDeleted} targets)`,
      await measure(herald, world, () => {
        const id = accounts.shift()!;
        return () => call(world.url, 'DELETE', `/api/accounts/${id}`, world.session);
      }),
    );
    const channels = [...deleted.channels];
    record(
      `DELETE FROM channels (${settings.targetsPerDeleted} targets), SQL`,
      await measure(herald, world, () => {
        const id = channels.shift()!;
        return () => world.db.query('DELETE FROM channels WHERE id = $1', [id]);
      }),
    );
    await world.db.query(
      `UPDATE posts SET status = 'failed' WHERE project_id = $1 AND id % ${FAILED_EVERY} = 0`,
      [world.projectId],
    );
    await world.db.query('ANALYZE posts');
    record(
      'GET …/posts?status=failed (0.5% failed)',
      await measure(herald, world, () => get(`${list}?status=failed`)),
    );
    await world.db.query(
      `UPDATE posts SET status = 'published' WHERE project_id = $1 AND status = 'failed'`,
      [world.projectId],
    );
  } finally {
    await stop(herald);
  }
  return shortCount(Number(counts.rows[0].posts));
}

/** 10,000 → "10k", 3,012,345 → "3.0M". */
function shortCount(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : `${Math.round(n / 1e3)}k`;
}

/**
 * `settings.warmup` unmeasured calls, then `settings.requests` measured one after another: each
 * call's latency, and the CPU Herald's process and the database's backends spent over them.
 */
async function measure(
  herald: ChildProcess,
  world: World,
  next: () => () => Promise<unknown>,
): Promise<Figures> {
  let failed = 0;
  const attempt = async (work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (error) {
      if (failed++ === 0) console.log(`    first failure: ${(error as Error).message}`);
    }
  };
  for (let i = 0; i < settings.warmup; i++) await attempt(next());
  failed = 0;
  const latencies: number[] = [];
  const database = sampleDatabaseBackends(world.admin, settings.databaseName, 50);
  const heraldBefore = cpuSeconds(herald.pid);
  for (let i = 0; i < settings.requests; i++) {
    const work = next();
    const started = performance.now();
    await attempt(work);
    latencies.push(performance.now() - started);
  }
  const databaseMs = await database.stop();
  const heraldMs = (cpuSeconds(herald.pid) - heraldBefore) * 1000;
  return {
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    heraldCpuMs: heraldMs / settings.requests,
    databaseCpuMs: databaseMs / settings.requests,
    failed,
  };
}

function report(
  results: Map<string, Partial<Record<Size, Figures>>>,
  sizes: Record<Size, string>,
): void {
  console.log(
    `\n${settings.requests} requests per operation, one at a time; CPU per request = Herald's process + the database's backends`,
  );
  console.log(
    `${'operation'.padEnd(NAME_WIDTH)}${`${sizes.small} p50`.padStart(10)}${'p95'.padStart(10)}${'CPU'.padStart(11)}` +
      `${`${sizes.big} p50`.padStart(10)}${'p95'.padStart(10)}${'CPU'.padStart(11)}${'p50 ×'.padStart(9)}${'CPU ×'.padStart(9)}`,
  );
  let met = true;
  for (const [name, { small, big }] of results) {
    if (!small || !big) continue;
    const cpu = (f: Figures) => f.heraldCpuMs + f.databaseCpuMs;
    const p50Ratio = big.p50 / small.p50;
    const cpuRatio = cpu(big) / cpu(small);
    const failed = small.failed + big.failed;
    met &&= p50Ratio <= TARGET_RATIO && cpuRatio <= TARGET_RATIO && failed === 0;
    console.log(
      `${name.padEnd(NAME_WIDTH)}${ms(small.p50).padStart(10)}${ms(small.p95).padStart(10)}${ms(cpu(small), 2).padStart(11)}` +
        `${ms(big.p50).padStart(10)}${ms(big.p95).padStart(10)}${ms(cpu(big), 2).padStart(11)}` +
        `${`${p50Ratio.toFixed(2)}×`.padStart(9)}${`${cpuRatio.toFixed(2)}×`.padStart(9)}` +
        (failed ? `  ${failed} failed` : ''),
    );
  }
  console.log(
    met ? `\nEvery ratio ≤ ${TARGET_RATIO}: met.` : `\nSome ratio > ${TARGET_RATIO}: MISSED.`,
  );
  console.log(
    `Load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (other work skews the figures)`,
  );
}

/**
 * The post list's status index dropped and its migration run again by the TypeORM CLI, as a
 * deployment runs it, while a client inserts a post every 20 ms: the migration's time, and the
 * longest insert meanwhile (an index built without CONCURRENTLY would hold them all).
 */
async function migrationOnBigTable(world: World): Promise<void> {
  const { rows } = await world.db.query('SELECT 1 FROM migrations WHERE name = $1', [
    STATUS_INDEX_MIGRATION,
  ]);
  if (rows.length === 0) {
    console.log(`\nThis build has no ${STATUS_INDEX_MIGRATION}: no migration timed.`);
    return;
  }
  await world.db.query(`DROP INDEX "${STATUS_INDEX}"`);
  await world.db.query('DELETE FROM migrations WHERE name = $1', [STATUS_INDEX_MIGRATION]);
  const { rows: count } = await world.db.query<{ n: string }>('SELECT count(*) AS n FROM posts');
  let writing = true;
  const inserts: number[] = [];
  const writer = (async () => {
    while (writing) {
      const started = performance.now();
      await world.db.query(
        `INSERT INTO posts (project_id, created_by_user_id, text, status) VALUES ($1, $2, 'during the migration', 'draft')`,
        [world.projectId, world.userId],
      );
      inserts.push(performance.now() - started);
      await new Promise((resolveWait) => setTimeout(resolveWait, 20));
    }
  })();
  const started = performance.now();
  await new Promise<void>((resolveRun, reject) => {
    const child = spawn(
      process.execPath,
      [TYPEORM_CLI, 'migration:run', '-d', join(DIST, 'ormconfig.js')],
      { cwd: WORKDIR, env: world.heraldEnv, stdio: 'ignore' },
    );
    child.on('exit', (code) =>
      code === 0 ? resolveRun() : reject(new Error(`migration:run exited with ${code}`)),
    );
  });
  const seconds = (performance.now() - started) / 1000;
  writing = false;
  await writer;
  console.log(
    `\nMigration building the index on (project_id, test, status, created_at, id) over ${Number(count[0].n).toLocaleString('en')} posts: ${seconds.toFixed(1)} s; ` +
      `${inserts.length} inserts into posts meanwhile, the longest ${ms(Math.max(...inserts))} (p50 ${ms(percentile(inserts, 50))})`,
  );
}

async function startHerald(
  heraldEnv: NodeJS.ProcessEnv,
  url: string,
  log: number,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...heraldNodeFlags(), join(DIST, 'src/main.js')], {
    cwd: WORKDIR,
    env: heraldEnv,
    stdio: ['ignore', log, 'inherit'],
  });
  await waitUntilAnswers(`${url}/health/live`, child, 'Herald', 60_000);
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** One measured request; fails the run on an answer other than 2xx. */
async function call(base: string, method: string, path: string, auth: string): Promise<unknown> {
  const res = await fetch(`${base}${path}`, { method, headers: { authorization: auth } });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as unknown) : null;
}

function run(args: string[], childEnv: NodeJS.ProcessEnv): void {
  const result = spawnSync(process.execPath, args, {
    cwd: WORKDIR,
    env: childEnv,
    encoding: 'utf8',
  });
  if (result.status !== 0)
    throw new Error(`${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
}

async function timed(what: string, work: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await work();
  console.log(`  ${what} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function ms(value: number, digits = 1): string {
  return `${value.toFixed(digits)} ms`;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

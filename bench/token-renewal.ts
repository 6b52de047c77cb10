/**
 * Token renewal under faults: BENCH_ACCOUNTS (1,000) X accounts whose access tokens expire within
 * the same minute, two worker processes of the built Herald, and an X stand-in whose token
 * endpoint fails 10% of renewals transiently (503, no answer until the renewal's time-out, a reset
 * connection) and refuses the refresh tokens of 1% of the accounts for good (their users revoked
 * Herald). Each account gets one post as its token nears its end, and a second once every renewal
 * is over. Prints renewals per account, false and missed needs_reconnect flags, and how much the
 * renewals delayed the sends. Run `npm run build` first.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Client } from 'pg';
import { request } from 'undici';
import { runCli } from '../src/operations/cli/commands';
import { loadConfig } from '../src/infrastructure/config/config';
import { dropTestDatabase } from '../test/support/databases';
import {
  heraldReady,
  spawnHerald,
  stopHerald,
  type HeraldProcess,
} from '../test/support/herald-process';
import { deleteRedisKeys } from '../test/support/redis-keys';
import { XStandIn, type XScript, type XUser } from '../test/support/stand-ins/x-stand-in';
import { createMigratedDatabase, TEST_APP_SECRET } from '../test/support/test-app';
import { freePort, postJson } from './support';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1_000);
const TOKEN_SECONDS = Number(process.env.BENCH_TOKEN_SECONDS ?? 60);
const TRANSIENT_SHARE = 0.1;
/** Renewal answers lost after X rotated the refresh token (BENCH_DROP_AFTER_ROTATION, e.g. 0.1). */
const DROPPED_SHARE = Number(process.env.BENCH_DROP_AFTER_ROTATION ?? 0);
/** How long the stand-in honours a rotated refresh token (BENCH_ROTATION_GRACE_MS; X: none). */
const ROTATION_GRACE_MS = Number(process.env.BENCH_ROTATION_GRACE_MS ?? 0);
const REFUSED_SHARE = 0.01;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PUBLIC_BASE_URL = 'http://herald.bench';
const METRICS_TOKEN = 'bench-metrics-token-0123456789';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const TRANSIENT: XScript[] = [
  { status: 503, body: { title: 'Service Unavailable', status: 503 } },
  { hang: true },
  { beforeServing: 'drop' },
];

async function main(): Promise<void> {
  const x = await new XStandIn().start();
  x.rotationGraceMs = ROTATION_GRACE_MS;
  let transientFaults = 0;
  let droppedAfterRotation = 0;
  x.faults = (route, body) => {
    if (route !== 'token' || body.grant_type !== 'refresh_token') return undefined;
    const draw = Math.random();
    if (draw < DROPPED_SHARE) {
      droppedAfterRotation++;
      return { afterServing: 'drop' };
    }
    if (draw >= DROPPED_SHARE + TRANSIENT_SHARE) return undefined;
    transientFaults++;
    return TRANSIENT[transientFaults % TRANSIENT.length];
  };
  x.registerCallback(`${PUBLIC_BASE_URL}/api/oauth/x/callback`);
  const { name, url } = await createMigratedDatabase();
  const prefix = `herald-bench-${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    ...x.env(),
    DATABASE_URL: url,
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    APP_SECRET: TEST_APP_SECRET,
    PUBLIC_BASE_URL,
    LOG_LEVEL: 'error',
    METRICS_TOKEN,
    RATE_LIMIT_OTHER: '1000000',
    RATE_LIMIT_CREATE_POST: '1000000',
    APP_RATE_LIMIT_PER_MINUTE: '1000000',
    REGISTRATIONS_PER_ADDRESS_PER_HOUR: '1000000',
    TOKEN_RENEWAL_TIMEOUT_MS: '2000',
    TOKEN_SWEEP_INTERVAL_MS: '5000',
    PUBLICATION_RETRY_BASE_MS: '1000',
  };
  const processes: HeraldProcess[] = [];
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const api = spawnHerald('api', await freePort(), env, { built: true });
    processes.push(api);
    await heraldReady(api, 60_000);
    const post = postJson(api.base);
    const email = `bench.renewal.${process.pid}@example.com`;
    const registered = await post('/api/auth/register', {
      email,
      password: 'correct horse battery',
      name: 'Bench',
    });
    if ((await runCli(['grant-admin', email], loadConfig(env), { out: () => undefined })) !== 0)
      throw new Error('grant-admin failed');
    const auth = `Bearer ${registered.token as string}`;
    const project = await post('/api/projects', { name: 'Renewals', timezone: 'UTC' }, auth);
    const key = (await post('/api/api-keys', { name: 'bench' }, auth)).key as string;

    console.log(
      `load average before: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    x.tokenSeconds = TOKEN_SECONDS;
    const started = Date.now();
    const accounts: { id: number; user: XUser; ref: string }[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const user = x.addUser(`bench${i}`);
      x.signIn(user);
      const link = await post(
        `/api/projects/${project.id as number}/connections`,
        { platform: 'x', redirect_url: 'https://app.example.com/done' },
        auth,
      );
      const consent = await request(link.authorize_url as string);
      await consent.body.dump();
      const back = new URL(String(consent.headers.location));
      const done = await request(`${api.base}${back.pathname}${back.search}`);
      await done.body.dump();
      const id = Number(new URL(String(done.headers.location)).searchParams.get('account_id'));
      accounts.push({ id, user, ref: `x:${id}:${user.id}` });
    }
    console.log(
      `${ACCOUNTS} accounts connected in ${((Date.now() - started) / 1000).toFixed(1)} s; their tokens expire within ${((Date.now() - started) / 1000).toFixed(0)} s of each other`,
    );
    // Renewed tokens live two hours, as X's do: one renewal per account is expected.
    x.tokenSeconds = 7_200;
    const revoked = accounts.filter((_, i) => i % Math.round(1 / REFUSED_SHARE) === 0);
    for (const account of revoked) x.revoke(account.user);

    for (let i = 0; i < 2; i++) {
      const worker = spawnHerald('worker', await freePort(), env, { built: true });
      processes.push(worker);
    }
    await Promise.all(processes.slice(1).map((w) => heraldReady(w, 60_000, METRICS_TOKEN)));

    // One post per account while its token nears its end: each send needs a renewal first.
    const publishedAt = new Map<string, number>();
    let refusedAtCreate = 0;
    const publishRound = async (round: number) => {
      await Promise.all(
        Array.from({ length: 8 }, async (_, lane) => {
          for (let i = lane; i < accounts.length; i += 8) {
            const text = `Round ${round} to ${accounts[i].user.username}`;
            publishedAt.set(text, Date.now());
            const res = await request(
              `${api.base}/api/public/v1/projects/${project.id as number}/posts`,
              {
                method: 'POST',
                headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
                body: JSON.stringify({
                  text,
                  targets: [{ channel_ref: accounts[i].ref }],
                  publish_now: true,
                }),
              },
            );
            const body = (await res.body.json()) as { error?: { code: string } };
            // An account flagged already (its refresh token refused) takes no post: that is right.
            if (res.statusCode === 400 && body.error?.code === 'channel_needs_reconnect')
              refusedAtCreate++;
            else if (res.statusCode !== 201)
              throw new Error(`create: ${res.statusCode} ${JSON.stringify(body)}`);
          }
        }),
      );
    };
    await publishRound(1);
    const settled = async () => {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM posts WHERE status NOT IN ('published', 'failed')`,
      );
      return rows[0].n === 0;
    };
    const deadline = Date.now() + 10 * 60_000;
    while (!(await settled()) && Date.now() < deadline) await sleep(500);
    // Let the sweeps finish every account whose renewal failed for now.
    const renewedAll = async () => {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM accounts WHERE platform = 'x' AND NOT needs_reconnect AND token_expires_at < now() + interval '1 hour'`,
      );
      return rows[0].n === 0;
    };
    while (!(await renewedAll()) && Date.now() < deadline) await sleep(1_000);
    await publishRound(2);
    while (!(await settled()) && Date.now() < deadline) await sleep(500);

    const delays = (round: number) =>
      x
        .callsOf('create_post')
        .filter(
          (call) => String(call.body.text).startsWith(`Round ${round} `) && call.status === 201,
        )
        .map((call) => call.at - (publishedAt.get(String(call.body.text)) ?? call.at));
    const flagged = new Set(
      (await db.query<{ id: number }>(`SELECT id FROM accounts WHERE needs_reconnect`)).rows.map(
        (r) => r.id,
      ),
    );
    const revokedIds = new Set(revoked.map((a) => a.id));
    const renewable = accounts.filter((a) => !revokedIds.has(a.id));
    const renewals = renewable.map((a) => x.renewalsOf(a.user));
    const histogram = new Map<number, number>();
    for (const n of renewals) histogram.set(n, (histogram.get(n) ?? 0) + 1);
    const { rows: outcomes } = await db.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM posts GROUP BY status ORDER BY status`,
    );
    const duplicates = accounts.filter(
      (a) => x.postsOf(a.user).length > (revokedIds.has(a.id) ? 0 : 2),
    ).length;
    const refreshCalls = x.callsOf('token').filter((c) => c.body.grant_type === 'refresh_token');
    const round1 = delays(1);
    const round2 = delays(2);

    console.log(
      `\nrenewal calls: ${refreshCalls.length} (${transientFaults} failed transiently, ${refreshCalls.filter((c) => c.status === 400).length} refused for good)`,
    );
    console.log(
      `renewals made per renewable account: ${[...histogram]
        .sort()
        .map(([n, c]) => `${n}: ${c} accounts`)
        .join(', ')}`,
    );
    console.log(
      `false needs_reconnect: ${renewable.filter((a) => flagged.has(a.id)).length} of ${renewable.length}`,
    );
    if (DROPPED_SHARE > 0)
      console.log(
        `renewal answers lost after X rotated: ${droppedAfterRotation}; renewable accounts flagged since: ${renewable.filter((a) => flagged.has(a.id)).length}`,
      );
    console.log(
      `accounts refused for good and flagged: ${revoked.filter((a) => flagged.has(a.id)).length} of ${revoked.length}`,
    );
    console.log(
      `posts: ${outcomes.map((o) => `${o.status} ${o.n}`).join(', ')}; refused at create (account flagged already): ${refusedAtCreate}; accounts with a duplicate post: ${duplicates}`,
    );
    console.log(
      `publish → X, sends that renewed first (round 1): p50 ${percentile(round1, 50)} ms, p99 ${percentile(round1, 99)} ms (${round1.length} posts)`,
    );
    console.log(
      `publish → X, tokens fresh (round 2): p50 ${percentile(round2, 50)} ms, p99 ${percentile(round2, 99)} ms (${round2.length} posts)`,
    );
    console.log(
      `load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    for (const p of processes) await stopHerald(p);
    await db.end();
    await x.stop();
    await dropTestDatabase(name);
    await deleteRedisKeys(REDIS_URL, prefix);
  }
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});

import { Factory } from '../support/factories/factories';
import { startTestApp, TestApp } from '../support/test-app';
import { sleep, waitFor } from '../support/waits';

/** Longer than pg's own default idle time (10 s), which the pool used to keep. */
const PAST_PG_DEFAULT_IDLE_MS = 11_000;

/**
 * The PostgreSQL connections one process keeps (DATABASE_POOL_SIZE, DATABASE_POOL_IDLE_MS): a
 * connection that goes idle stays open for minutes, not pg's 10 s, so a process under uneven load
 * does not open a new backend (a fork, cold caches, statements prepared again) behind the requests
 * of every burst. Connections are counted where PostgreSQL sees them, in pg_stat_activity, by the
 * application name the process gives them.
 */
describe('Database pool', () => {
  const apps: TestApp[] = [];

  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
  });

  /** An app whose public requests all read the database, with an API key to send them. */
  const start = async (env: Record<string, string> = {}) => {
    const t = await startTestApp({ API_KEY_CACHE_MS: '0', RATE_LIMIT_OTHER: '100000', ...env });
    apps.push(t);
    const { key } = await new Factory(t).owner();
    return { t, key };
  };

  /** Requests at once, each on a connection of its own: the pool opens what they need. */
  const burst = async (t: TestApp, key: string, requests: number) => {
    const answers = await Promise.all(
      Array.from({ length: requests }, () =>
        t.http.get('/api/public/v1/projects').set('Authorization', `Bearer ${key}`),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(requests).fill(200));
  };

  /** Backend process ids serving the app's pool (the test's own client is not among them). */
  const backends = async (t: TestApp): Promise<number[]> => {
    const { rows } = await t.db.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'herald-all'
        ORDER BY pid`,
    );
    return rows.map((row) => row.pid);
  };

  it('keeps idle connections past pg’s 10 s: the same backends serve the next burst', async () => {
    const { t, key } = await start();
    await burst(t, key, 10);
    const before = await backends(t);
    expect(before.length).toBeGreaterThan(0);

    await sleep(PAST_PG_DEFAULT_IDLE_MS);
    expect(await backends(t)).toEqual(before);
    await burst(t, key, 10);
    expect((await backends(t)).filter((pid) => before.includes(pid))).toEqual(before);
  }, 30_000);

  it('closes connections idle longer than DATABASE_POOL_IDLE_MS', async () => {
    const { t, key } = await start({ DATABASE_POOL_IDLE_MS: '300' });
    await burst(t, key, 5);
    expect((await backends(t)).length).toBeGreaterThan(0);
    await waitFor(async () => (await backends(t)).length === 0);

    // The next request opens one again.
    await burst(t, key, 1);
    expect((await backends(t)).length).toBeGreaterThan(0);
  });

  it('opens at most DATABASE_POOL_SIZE connections, and requests beyond them wait their turn', async () => {
    const { t, key } = await start({ DATABASE_POOL_SIZE: '2' });
    await burst(t, key, 30);
    const pids = await backends(t);
    expect(pids.length).toBeGreaterThan(0);
    expect(pids.length).toBeLessThanOrEqual(2);
  });
});

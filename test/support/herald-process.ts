import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './waits';

const ROOT = join(__dirname, '..', '..');
const TS_NODE = ['-r', require.resolve('ts-node/register/transpile-only')];
const TS_ENV = { TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') };
/**
 * Where every process starts: an empty directory, so that a developer's `.env` (which the service
 * reads from its working directory) never configures one behind the test's back.
 */
const WORKDIR = mkdtempSync(join(tmpdir(), 'herald-process-'));

export type HeraldRole = 'all' | 'api' | 'worker';

/** Herald as a process of its own (`src/main.ts`), as production runs each role. */
export interface HeraldProcess {
  role: HeraldRole;
  child: ChildProcess;
  /** Where it answers: HTTP for `all` and `api`, its metrics for a `worker`. */
  base: string;
  logs: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts Herald with `env` alone (and PATH): `src/main.ts` through ts-node, or with `built` the
 * `dist/src/main.js` that `npm run build` made, as production runs it. An `api` or `all` process
 * serves on `port`, a worker its metrics (set METRICS_TOKEN in `env` to reach them).
 */
export function spawnHerald(
  role: HeraldRole,
  port: number,
  env: Record<string, string>,
  { built = false }: { built?: boolean } = {},
): HeraldProcess {
  const args = built ? [join(ROOT, 'dist/src/main.js')] : [...TS_NODE, join(ROOT, 'src/main.ts')];
  const child = spawn(process.execPath, args, {
    cwd: WORKDIR,
    env: {
      PATH: process.env.PATH ?? '',
      ...(built ? {} : TS_ENV),
      ...env,
      APP_ROLE: role,
      [role === 'worker' ? 'METRICS_PORT' : 'PORT']: String(port),
    },
  });
  const herald: HeraldProcess = {
    role,
    child,
    base: `http://127.0.0.1:${port}`,
    logs: '',
    exit: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
  };
  child.stdout?.on('data', (chunk) => (herald.logs += chunk));
  child.stderr?.on('data', (chunk) => (herald.logs += chunk));
  return herald;
}

/** Resolves once the process answers (readiness, or a worker's metrics); its logs if it never does. */
export async function heraldReady(
  herald: HeraldProcess,
  timeoutMs: number,
  metricsToken?: string,
): Promise<void> {
  const probe = () =>
    herald.role === 'worker'
      ? fetch(`${herald.base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
      : fetch(`${herald.base}/health/ready`);
  await waitFor(async () => {
    if (herald.child.exitCode !== null) throw new Error(`exited:\n${herald.logs}`);
    return probe().then(
      (res) => res.ok,
      () => false,
    );
  }, timeoutMs).catch((error: Error) => {
    throw new Error(`Herald (${herald.role}) did not start (${error.message}):\n${herald.logs}`);
  });
}

/** Stops the process with `signal` unless it has already exited, and waits for its exit. */
export async function stopHerald(
  herald: HeraldProcess,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (herald.child.exitCode === null && herald.child.signalCode === null) herald.child.kill(signal);
  await herald.exit;
}

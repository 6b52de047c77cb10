import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMigratedDatabase, TEST_APP_SECRET } from '../support/test-app';
import { dropTestDatabase } from '../support/databases';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { freePort } from '../support/free-port';
import { heraldReady, HeraldProcess, spawnHerald, stopHerald } from '../support/herald-process';
import { sleep } from '../support/waits';

const ROOT = join(__dirname, '..', '..');
const TS_NODE = ['-r', require.resolve('ts-node/register/transpile-only')];
/**
 * The processes start in an empty directory of their own, so a developer's `.env` (which the
 * service reads from its working directory) never configures them behind the test's back.
 */
const WORKDIR = mkdtempSync(join(tmpdir(), 'herald-process-'));
const TS_ENV = { TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  script: string,
  args: string[],
  env: Record<string, string>,
  cwd = WORKDIR,
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...TS_NODE, join(ROOT, script), ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...TS_ENV, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The service and the CLI as separate processes, configured only by the environment. */
describe('Herald as a process', () => {
  it('stops at start with one clear line per bad variable, naming none of the values', async () => {
    const result = await run('src/main.ts', [], {
      APP_SECRET: 'too-short-secret',
      PORT: 'http',
      APP_ROLE: 'everything',
    });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe('Invalid configuration:');
    expect(lines.slice(1).map((l) => l.trim())).toEqual([
      '- PORT must be a whole number from 0 to 65535',
      '- DATABASE_URL is required',
      '- APP_SECRET must be at least 32 characters long',
      '- APP_ROLE must be one of: all, api, worker',
    ]);
    expect(result.stderr).not.toContain('too-short-secret');
  }, 60_000);

  it('completes the environment from .env in its working directory, where a set variable wins', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-dotenv-'));
    writeFileSync(
      join(dir, '.env'),
      'DATABASE_URL=postgres://postgres@127.0.0.1:5432/herald\nAPP_SECRET=short\nAPP_ROLE=api\n',
    );
    const result = await run('src/main.ts', [], { APP_SECRET: TEST_APP_SECRET, PORT: 'http' }, dir);
    expect(result.code).toBe(1);
    // DATABASE_URL came from .env; APP_SECRET from the environment, so its short .env line lost.
    expect(result.stderr.trim().split('\n')).toEqual([
      'Invalid configuration:',
      '  - PORT must be a whole number from 0 to 65535',
    ]);
  }, 60_000);

  describe('serving, with the CLI beside it', () => {
    let database: { name: string; url: string };
    let telegram: TelegramStandIn;
    let service: HeraldProcess;
    let base: string;
    let env: Record<string, string>;

    beforeAll(async () => {
      database = await createMigratedDatabase();
      telegram = await new TelegramStandIn().start();
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      env = {
        DATABASE_URL: database.url,
        APP_SECRET: TEST_APP_SECRET,
        PORT: String(port),
        REDIS_KEY_PREFIX: `herald-process-${process.pid}`,
        TELEGRAM_API_BASE_URL: telegram.url,
        PUBLIC_BASE_URL: base,
        LOG_LEVEL: 'info',
        APP_ROLE: 'api',
      };
      service = spawnHerald('api', port, env);
      await heraldReady(service, 40_000);
    }, 60_000);

    afterAll(async () => {
      if (service) await stopHerald(service);
      await telegram?.stop();
      if (database) await dropTestDatabase(database.name);
    });

    const call = async (method: string, path: string, body?: unknown, auth?: string) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    it('serves a user from registration to a working API key, and logs JSON lines with no secret', async () => {
      const password = 'process-test-password';
      const email = `proc${process.pid}@example.com`;
      const reg = await call('POST', '/api/auth/register', { email, password, name: 'Proc' });
      expect(reg.status).toBe(201);
      const session = `Bearer ${reg.body.token as string}`;

      const grant = await run('src/operations/cli/main.ts', ['grant-admin', email], env);
      expect(grant).toMatchObject({ code: 0 });
      expect(grant.stdout).toContain(`${email} is an administrator`);

      const project = await call(
        'POST',
        '/api/projects',
        { name: 'Proc project', timezone: 'UTC' },
        session,
      );
      expect(project.status).toBe(201);
      const botToken = telegram.addBot();
      const account = await call(
        'POST',
        '/api/accounts',
        { project_id: project.body.id, platform: 'telegram', bot_token: botToken },
        session,
      );
      expect(account.status).toBe(201);
      const key = await call('POST', '/api/api-keys', { name: 'proc' }, session);
      expect(key.status).toBe(201);
      const apiKey = key.body.key as string;

      const list = await call('GET', '/api/public/v1/projects', undefined, `Bearer ${apiKey}`);
      expect(list.status).toBe(200);
      expect(list.body.count).toBe(1);
      const bad = await call(
        'GET',
        '/api/public/v1/projects?api_key=leak',
        undefined,
        `Bearer ${apiKey}x`,
      );
      expect(bad.status).toBe(401);

      await sleep(300);
      const lines = service.logs
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('{'));
      const requests = lines
        .map((line) => JSON.parse(line) as { req?: { id: string; path: string } })
        .filter((l) => l.req);
      expect(requests.length).toBeGreaterThanOrEqual(6);
      expect(requests.every((l) => typeof l.req?.id === 'string' && l.req.id.length > 0)).toBe(
        true,
      );
      for (const secret of [
        password,
        reg.body.token as string,
        apiKey,
        apiKey.split('.')[1],
        botToken,
        'api_key=leak',
      ]) {
        expect(service.logs).not.toContain(secret);
      }
    }, 60_000);

    it('seeds the demo idempotently and prints a working key and a curl line', async () => {
      const first = await run('src/operations/cli/main.ts', ['seed-demo'], env);
      expect(first.code).toBe(0);
      const second = await run('src/operations/cli/main.ts', ['seed-demo'], env);
      expect(second.code).toBe(0);
      expect(second.stdout).toContain('exists; its password is unchanged');

      for (const output of [first.stdout, second.stdout]) {
        const key = /API key \(shown once\): (hrld_live_\S+)/.exec(output)?.[1];
        expect(key).toBeDefined();
        expect(output).toContain(
          `curl -s -H "Authorization: Bearer ${key}" ${base}/api/public/v1/projects`,
        );
        const projects = await call('GET', '/api/public/v1/projects', undefined, `Bearer ${key}`);
        expect(projects.status).toBe(200);
        expect(projects.body.items).toEqual([
          expect.objectContaining({ name: 'Demo project', is_owner: true }),
        ]);
        const channels = await call(
          'GET',
          `/api/public/v1/projects/${(projects.body.items as { id: number }[])[0].id}/channels`,
          undefined,
          `Bearer ${key}`,
        );
        expect(channels.body.count).toBe(2);
      }
    }, 90_000);
  });
});

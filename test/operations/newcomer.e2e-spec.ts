import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseUrl, dropTestDatabase, TEST_DATABASE_PREFIX } from '../support/databases';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { deleteRedisKeys } from '../support/redis-keys';
import { TEST_REDIS_URL } from '../support/test-app';
import { freePort } from '../support/free-port';
import { heraldNodeFlags, nodeFlags } from '../support/node-flags';
import { sleep } from '../support/waits';

const ROOT = join(__dirname, '..', '..');

/** Only what a shell needs to find programs: no Herald variable is exported. */
const BARE_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };

interface Ran {
  code: number | null;
  output: string;
}

/**
 * A newcomer's first hour, on a copy of the repository (what a fresh clone holds, with this
 * checkout's node_modules linked in): the quick start as a process on a fresh database, its
 * printed curl lines run as printed; then the README's commands, in new shells with no exported
 * variables, from the built service to the "Using the public API" walk ending in a published
 * test post; and the guide's first-hour script with the client the quick start built. Telegram is a local stand-in that must receive no message.
 */
describe('A newcomer follows the README', () => {
  let dir: string;
  let telegram: TelegramStandIn;
  let port: number;
  const database = `${TEST_DATABASE_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;
  const redisPrefix = `herald-test-${randomBytes(6).toString('hex')}`;
  const running = new Set<ChildProcess>();

  /** Starts a command in its own process group, collecting everything it prints. */
  function start(command: string, env: Record<string, string> = {}) {
    const child = spawn('bash', ['-c', command], {
      cwd: dir,
      env: { ...BARE_ENV, ...env },
      detached: true,
    });
    running.add(child);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) =>
      child.on('close', (code) => {
        running.delete(child);
        resolve(code);
      }),
    );
    return {
      output: () => output,
      exited,
      async waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
        const until = Date.now() + timeoutMs;
        for (;;) {
          const match = pattern.exec(output);
          if (match) return match;
          if (child.exitCode !== null || Date.now() > until)
            throw new Error(`Never printed ${pattern}:\n${output}`);
          await sleep(200);
        }
      },
      async stop(): Promise<void> {
        if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
        await exited;
      },
    };
  }

  async function run(command: string, env: Record<string, string> = {}): Promise<Ran> {
    const child = start(command, env);
    const code = await child.exited;
    return { code, output: child.output() };
  }

  beforeAll(() => {
    // The quick start runs `npm ci` unless node_modules carries the stamp of this lock file, and the
    // copy's node_modules is this checkout's: unstamped, it would be emptied and reinstalled under
    // the suite. `npm test` installs and stamps; a file run alone needs that done once.
    const stamp = join(ROOT, 'node_modules', '.herald-lock-hash');
    const lockHash = createHash('sha256')
      .update(readFileSync(join(ROOT, 'package-lock.json')))
      .digest('hex');
    if (!existsSync(stamp) || readFileSync(stamp, 'utf8').trim() !== lockHash)
      throw new Error(
        'node_modules is not stamped as installed from package-lock.json: run `npm test` once ' +
          '(it installs and stamps) before running this file alone',
      );
    dir = mkdtempSync(join(tmpdir(), 'herald-newcomer-'));
    // The repository's files as a clone has them (tracked and new, never ignored ones like .env).
    execFileSync(
      'bash',
      [
        '-c',
        `git ls-files -z --cached --others --exclude-standard | grep -zv '^node_modules' |
           xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\\0" "{}"' |
           tar --null -T - -cf - | tar -xf - -C "${dir}"`,
      ],
      { cwd: ROOT },
    );
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  });

  beforeAll(async () => {
    telegram = await new TelegramStandIn().start();
    port = await freePort();
  });

  afterAll(async () => {
    for (const child of running) if (child.pid) process.kill(-child.pid, 'SIGKILL');
    await telegram?.stop();
    await dropTestDatabase(database).catch(() => undefined);
    await deleteRedisKeys(TEST_REDIS_URL, redisPrefix);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the quick start serves, and its printed test-mode curl lines publish a post', async () => {
    const quickstart = start('bash scripts/quickstart.sh', {
      PORT: String(port),
      DATABASE_URL: databaseUrl(database),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: redisPrefix,
      TELEGRAM_API_BASE_URL: telegram.url,
      // The guide's setting for a webhook receiver on this machine.
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    });
    try {
      await quickstart.waitFor(/Herald runs until Ctrl\+C/, 400_000);
      const output = quickstart.output();
      expect(output).toMatch(/API key \(shown once\): hrld_live_\S+/);
      expect(output).toMatch(/Test key \(shown once\): hrld_test_\S+/);
      // The keys and the password come last, after the service's start-up logs.
      expect(output.indexOf('Test key (shown once)')).toBeGreaterThan(
        output.indexOf('listening on port'),
      );
      expect(output).toMatch(/Created user demo@herald\.local with password \S+/);

      // Run again while it serves: refused before anything is rebuilt, and the first goes on.
      const again = await run('bash scripts/quickstart.sh', { PORT: String(port) });
      expect(again.code).toBe(1);
      expect(again.output).toContain(
        `quickstart: port ${port} is in use: is Herald already running?`,
      );
      expect(again.output).not.toContain('Building');
      expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);

      // .env: the local settings, readable by its owner only, and APP_SECRET never printed.
      const env = readFileSync(join(dir, '.env'), 'utf8');
      const secret = /^APP_SECRET=(\S+)$/m.exec(env)?.[1];
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      expect(output).not.toContain(secret);
      expect(statSync(join(dir, '.env')).mode & 0o077).toBe(0);
      expect(env).toContain(`DATABASE_URL=${databaseUrl(database)}`);
      expect(env).toContain(`PORT=${port}`);

      const curls = output
        .split('\n')
        .filter((line) => line.startsWith('  curl '))
        .map((line) => line.trim());
      expect(curls).toHaveLength(3);
      telegram.reset();

      const channels = JSON.parse((await run(curls[0])).output);
      expect(channels.count).toBe(2);
      const created = JSON.parse((await run(curls[1])).output);
      expect(created).toMatchObject({ status: 'queued', test: true, text: 'Hello from Herald' });

      let latest: { id: number; status: string; test: boolean; targets: unknown[] } | undefined;
      for (let i = 0; i < 60 && latest?.status !== 'published'; i++) {
        if (i > 0) await sleep(250);
        latest = JSON.parse((await run(curls[2])).output).items[0];
      }
      expect(latest).toMatchObject({
        id: created.id,
        status: 'published',
        test: true,
        targets: [
          expect.objectContaining({ status: 'published', message_ids: [expect.any(Number)] }),
        ],
      });
      expect(telegram.calls).toEqual([]);

      // The client path: the guide's first-hour script, with the client the quick start built
      // and its test key: a test post published, and its webhook event received and verified.
      const guide = readFileSync(join(dir, 'docs', 'integrating.md'), 'utf8');
      const snippets = [...guide.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
      const firstHour = snippets.find((code) => code.includes('Hello from the client'));
      const script = `(async () => {\n${snippets[0]}\n${firstHour}\n})().catch((error) => { console.error(error); process.exit(1); });`;
      const client = await run(`node -e '${script.replace(/'/g, `'\\''`)}'`, {
        HERALD: `http://localhost:${port}`,
        KEY: /Test key \(shown once\): (\S+)/.exec(output)![1],
        PROJECT: '1',
        CHANNEL: 'telegram:1:-1001000000001',
        HOOK_PORT: String(await freePort()),
      });
      expect({ code: client.code, output: client.output.trim() }).toEqual({
        code: 0,
        output: 'post.published true published',
      });
      expect(telegram.calls).toEqual([]);
    } finally {
      await quickstart.stop();
    }
  }, 480_000);

  it('npm start, the image and the README run Herald with the same flags to Node', () => {
    // A young generation capped at 16 MB, whatever Node's version, and an old one that may
    // triple before a full collection (bench/README.md measures what each saves).
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const start = heraldNodeFlags();
    expect(start).toEqual(['--max-semi-space-size=16', '--heap-growing-percent=200']);
    expect(nodeFlags(scripts['start:prod'])).toEqual(start);
    const image = /^CMD (.*)$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
    expect(nodeFlags(image ?? '')).toEqual(start);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').match(
      /^.* dist\/src\/main\.js.*$/gm,
    );
    expect(readme).toHaveLength(2);
    for (const line of readme!) expect(nodeFlags(line.split('#')[0])).toEqual(start);
  });

  it('every README command works in a new shell with no exported variables', async () => {
    // A setting of the reader's own: this Telegram is the local stand-in.
    appendFileSync(join(dir, '.env'), `TELEGRAM_API_BASE_URL=${telegram.url}\n`);

    const migrate = await run('npm run migration:run');
    expect(migrate.code).toBe(0);
    expect(migrate.output).toContain('No migrations are pending');

    const seed = await run('npm run cli -- seed-demo');
    expect(seed.code).toBe(0);
    expect(seed.output).toMatch(/Test key \(shown once\): hrld_test_/);

    for (const command of ['npm start', 'npm run start:prod']) {
      const server = start(command);
      try {
        await server.waitFor(/listening on port/, 60_000);
        const res = await fetch(`http://127.0.0.1:${port}/health/live`);
        expect(res.status).toBe(200);
      } finally {
        await server.stop();
      }
    }

    // The "Using the public API" walk, as written, with the reader's three settings filled in.
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Using the public API'));
    const walk = /```bash\n([\s\S]*?)```/.exec(section)?.[1];
    expect(walk).toBeDefined();
    const token = telegram.addBot('newcomer_bot');
    telegram.addChat({ id: -1009000000001, type: 'channel', title: 'Mine', username: 'my_chan' });
    const filled = walk!
      .replace(/^HERALD=.*$/m, `HERALD=http://127.0.0.1:${port}`)
      .replace(/^BOT_TOKEN=.*$/m, `BOT_TOKEN='${token}'`)
      .replace(/^CHAT=.*$/m, `CHAT='@my_chan'`);
    expect(filled).not.toBe(walk);

    const server = start('npm start');
    try {
      await server.waitFor(/listening on port/, 60_000);
      telegram.reset();
      const result = await run(`set -euo pipefail\n${filled}`);
      expect(result.code).toBe(0);
      const lastLine = result.output.trim().split('\n').pop() ?? '';
      const post = JSON.parse(lastLine);
      expect(post).toMatchObject({
        status: 'published',
        test: true,
        text: 'Hello',
        targets: [
          expect.objectContaining({ status: 'published', message_ids: [expect.any(Number)] }),
        ],
      });
      // The walk talked to Telegram to check the bot and the chat, and sent nothing.
      expect(telegram.calls.map((c) => c.method).sort()).toEqual(['getChat', 'getMe']);

      // Run again, the first step fails (the email is taken): the walk stops there, with
      // Herald's answer, and goes no further.
      telegram.reset();
      const again = await run(filled);
      expect(again.code).toBe(1);
      expect(again.output).toMatch(/^stopped: \{"error":\{"code":"\w+"/m);
      expect(again.output).not.toContain('grant-admin');
      expect(telegram.calls).toEqual([]);
    } finally {
      await server.stop();
    }
  }, 240_000);
});

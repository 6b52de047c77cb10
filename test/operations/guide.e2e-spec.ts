import { MastodonStandIn } from '../support/stand-ins/mastodon-stand-in';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_EMAIL, runCli } from '../../src/operations/cli/commands';
import { freePort } from '../support/free-port';
import { MICROS } from '../support/expectations';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';

const ROOT = join(__dirname, '..', '..');
const GUIDE = join(ROOT, 'docs', 'integrating.md');

/**
 * Values that differ from run to run (ids, instants, keys, links to stored files, cursors): these
 * are compared by their type, or a date-time by its format. Everything else is compared exactly.
 */
const VARYING = new Set([
  'id',
  'created_at',
  'updated_at',
  'published_at',
  'scheduled_at',
  'message_ids',
  'url',
  'storage_path',
  'next_cursor',
  'event_id',
  'secret',
  'key',
  'public_id',
  'duration_ms',
  'token',
  'prefix',
  'authorize_url',
  'expires_at',
]);

interface Example {
  heading: string;
  command: string;
  kind: 'json' | 'text';
  expected: string;
}

/** Every ```bash block of the guide with the answer block that follows it. */
function examples(markdown: string): Example[] {
  const found: Example[] = [];
  const pattern = /```bash\n([\s\S]*?)```\s*\n```(json|text)\n([\s\S]*?)```/g;
  for (let match = pattern.exec(markdown); match; match = pattern.exec(markdown)) {
    const before = markdown.slice(0, match.index);
    const heading = [...before.matchAll(/^## (.+)$/gm)].pop()?.[1] ?? '';
    found.push({
      heading,
      command: match[1],
      kind: match[2] as 'json' | 'text',
      expected: match[3],
    });
  }
  return found;
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** Where `actual` differs from the documented answer, as readable paths; [] when it is the same. */
export function differences(
  expected: unknown,
  actual: unknown,
  path = '$',
  varying = false,
): string[] {
  const shown = (value: unknown) => JSON.stringify(value);
  if (varying) {
    if (kindOf(expected) !== kindOf(actual))
      return [`${path}: ${shown(actual)}, not a ${kindOf(expected)}`];
    if (typeof expected === 'string' && MICROS.test(expected) && !MICROS.test(actual as string))
      return [`${path}: ${shown(actual)} is not a date-time like ${shown(expected)}`];
    if (Array.isArray(expected) && (actual as unknown[]).length !== expected.length)
      return [`${path}: ${(actual as unknown[]).length} items, not ${expected.length}`];
    return [];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: ${shown(actual)}, not an array`];
    if (actual.length !== expected.length)
      return [`${path}: ${actual.length} items, not ${expected.length}`];
    return expected.flatMap((item, n) => differences(item, actual[n], `${path}[${n}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    if (kindOf(actual) !== 'object') return [`${path}: ${shown(actual)}, not an object`];
    const got = actual as Record<string, unknown>;
    const missing = Object.keys(expected).filter((key) => !(key in got));
    const extra = Object.keys(got).filter((key) => !(key in expected));
    return [
      ...missing.map((key) => `${path}.${key}: missing`),
      ...extra.map((key) => `${path}.${key}: not documented (${shown(got[key])})`),
      ...Object.entries(expected as Record<string, unknown>)
        .filter(([key]) => key in got)
        .flatMap(([key, value]) =>
          differences(value, got[key], `${path}.${key}`, VARYING.has(key)),
        ),
    ];
  }
  return expected === actual ? [] : [`${path}: ${shown(actual)}, not ${shown(expected)}`];
}

function shell(command: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', command], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}${out}`)),
    );
  });
}

/** Every ```js block of the guide, in order. */
function snippets(markdown: string): string[] {
  return [...markdown.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]);
}

/** A local webhook receiver that answers 204 to everything. */
async function receiver(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/**
 * The integrators' guide cannot rot. Herald listens on a local port with the quick start's demo
 * data (`seed-demo`), and the guide's shell variables are set: each curl example runs, in order,
 * and its answer must be the documented one in full (every field, no other; values that differ
 * from run to run, such as ids and instants, by their type). Then each client snippet runs, in
 * order, after the first one, against the client built from clients/typescript.
 */
describe('docs/integrating.md: every example does what the guide shows', () => {
  let world: TelegramWorld;
  let env: Record<string, string>;
  let hooks: Server;
  let built: string;
  /** The instance the guide's connection starts on. */
  let mastodon: MastodonStandIn;
  const guide = readFileSync(GUIDE, 'utf8');
  const all = examples(guide);

  beforeAll(async () => {
    // The examples and snippets together make more posts than a minute's limit allows; the
    // client would wait out each 429 (the rate-limit example checks the headers, not the limits).
    world = await startWithTelegram({
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      RATE_LIMIT_CREATE_POST: '1000',
      RATE_LIMIT_PUBLISH: '1000',
      RATE_LIMIT_UPLOAD: '1000',
      RATE_LIMIT_OTHER: '1000',
    });
    const { t } = world;
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const printed: string[] = [];
    expect(await runCli(['seed-demo'], t.config, { out: (line) => printed.push(line) })).toBe(0);
    const seeded = printed.join('\n');
    const password = /with password (\S+)/.exec(seeded)![1];
    const session = await t.http
      .post('/api/auth/login')
      .send({ email: DEMO_EMAIL, password })
      .expect(200);
    const narrow = await t.http
      .post('/api/api-keys')
      .set('Authorization', `Bearer ${session.body.token}`)
      .send({ name: 'narrow', scopes: ['projects:read'] })
      .expect(201);
    hooks = await receiver();
    mastodon = await new MastodonStandIn().start();
    built = mkdtempSync(join(tmpdir(), 'herald-guide-client-'));
    execFileSync(process.execPath, [
      require.resolve('typescript/bin/tsc'),
      '-p',
      join(ROOT, 'clients', 'typescript', 'tsconfig.json'),
      '--outDir',
      built,
    ]);
    env = {
      HERALD: `http://127.0.0.1:${port}`,
      API: `http://127.0.0.1:${port}/api/public/v1`,
      KEY: /Test key \(shown once\): (\S+)/.exec(seeded)![1],
      LIVE_KEY: /API key \(shown once\): (\S+)/.exec(seeded)![1],
      INSTANCE: mastodon.url,
      NARROW: narrow.body.key,
      PROJECT: '1',
      CHANNEL: 'telegram:1:-1001000000001',
      IMAGE: join(__dirname, '..', 'fixtures', 'media', 'sample.png'),
      HOOK_URL: `http://localhost:${(hooks.address() as AddressInfo).port}/herald`,
      HOOK_PORT: String(await freePort()),
      EMAIL: DEMO_EMAIL,
      PASSWORD: password,
    };
  });

  afterAll(async () => {
    await world?.close();
    await new Promise((resolve) => hooks?.close(resolve));
    await mastodon?.stop();
    if (built) rmSync(built, { recursive: true, force: true });
  });

  it('README and docs/ stand on their own: no decision numbers, no files outside the repository', () => {
    const root = join(__dirname, '..', '..');
    const docs = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md'));
    for (const file of ['README.md', ...docs.map((name) => join('docs', name))]) {
      const text = readFileSync(join(root, file), 'utf8');
      expect({ file, found: text.match(/\bD\d{1,2}\b|\.\.\/shared|DECISIONS/g) }).toEqual({
        file,
        found: null,
      });
    }
  });

  it('has an example in each section it promises', () => {
    const sections = new Set(all.map((e) => e.heading));
    for (const heading of [
      'Getting a session and a key',
      'Authentication and scopes',
      'Errors and their codes',
      'Rate limits',
      'Post states',
      'Checking a post before creating it',
      'Threads and first comments',
      'Media rules',
      "Connecting your users' accounts",
      'Test mode',
      'Idempotency',
      'Webhooks',
    ])
      expect(sections).toContain(heading);
    // Each ```bash block is followed by its answer, so none escapes this test.
    expect(all).toHaveLength(guide.split('```bash').length - 1);
  });

  it('runs every example, in order, and each answers as documented, in full', async () => {
    // Each wrong answer is shown whole, to paste into the guide once checked.
    const wrong: { where: string; differences: string[]; answered?: string }[] = [];
    for (const example of all) {
      const output = await shell(example.command, env);
      const where = `${example.heading}: ${example.command.split('\n')[0]}`;
      if (example.kind === 'json') {
        let actual: unknown;
        try {
          actual = JSON.parse(output);
        } catch {
          throw new Error(`${where}\nanswered no JSON: ${output}`);
        }
        const found = differences(JSON.parse(example.expected), actual);
        if (found.length > 0) wrong.push({ where, differences: found, answered: output.trim() });
      } else {
        const lines = output.toLowerCase().split(/\r?\n/);
        for (const line of example.expected.trim().split('\n')) {
          // A header's value may differ (counters, instants); any other line is printed as shown.
          const header = /^[\w-]+: \d+$/.test(line) ? line.split(':')[0].toLowerCase() : null;
          const seen = header
            ? lines.some((got) => got.startsWith(`${header}:`))
            : lines.includes(line.toLowerCase());
          if (!seen)
            wrong.push({ where, differences: [`no line ${JSON.stringify(line)} in ${output}`] });
        }
      }
    }
    expect(wrong).toEqual([]);
    // The test posts went through the pipeline and Telegram received nothing.
    expect(world.telegram.calls.filter((c) => c.method.startsWith('send'))).toEqual([]);
  }, 120_000);

  it('runs every client snippet, in order, after the first', async () => {
    const [preamble, ...rest] = snippets(guide);
    expect(preamble).toContain("require('./clients/typescript')");
    const start = preamble.replace(
      "require('./clients/typescript')",
      `require(${JSON.stringify(built)})`,
    );
    for (const snippet of rest) {
      const script = `(async () => {\n${start}\n${snippet}\n})().catch((error) => { console.error(error); process.exit(1); });`;
      const output = await shell(
        `cd ${JSON.stringify(ROOT)} && node -e ${shellQuote(script)}`,
        env,
      );
      if (snippet.includes('Hello from the client'))
        expect(output.trim()).toBe('post.published true published');
    }
    expect(world.telegram.calls.filter((c) => c.method.startsWith('send'))).toEqual([]);
  }, 120_000);
});

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startWithTelegram, TelegramWorld } from './support/telegram-world';

const GUIDE = join(__dirname, '..', 'docs', 'integrating.md');

/** Values compared exactly; every other value only by its type. */
const EXACT = new Set(['code', 'status', 'test', 'type', 'mime_type', 'is_owner']);

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

/** Where `actual` differs from the documented answer's shape, as readable paths; [] when it fits. */
function differences(expected: unknown, actual: unknown, path = '$'): string[] {
  if (expected === null) return actual === null ? [] : [`${path}: expected null`];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array`];
    if (expected.length === 0) return actual.length === 0 ? [] : [`${path}: expected []`];
    if (actual.length === 0) return [`${path}: expected items`];
    return differences(expected[0], actual[0], `${path}[0]`);
  }
  if (typeof expected === 'object') {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual))
      return [`${path}: expected an object`];
    return Object.entries(expected as Record<string, unknown>).flatMap(([key, value]) => {
      const here = `${path}.${key}`;
      const got = (actual as Record<string, unknown>)[key];
      if (!(key in (actual as object))) return [`${here}: missing`];
      if (EXACT.has(key) && typeof value !== 'object')
        return got === value
          ? []
          : [`${here}: ${JSON.stringify(got)}, not ${JSON.stringify(value)}`];
      return differences(value, got, here);
    });
  }
  return typeof actual === typeof expected ? [] : [`${path}: expected a ${typeof expected}`];
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

/**
 * The integrators' guide cannot rot: each of its curl examples runs against a Herald listening on
 * a local port, with the guide's shell variables set, and its answer must have the documented
 * shape (every documented field present; codes, statuses and kinds equal).
 */
describe('docs/integrating.md: every example does what the guide shows', () => {
  let world: TelegramWorld;
  let env: Record<string, string>;
  const guide = readFileSync(GUIDE, 'utf8');
  const all = examples(guide);

  beforeAll(async () => {
    world = await startWithTelegram();
    const { t, make } = world;
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const { owner, project } = await make.owner('Demo project');
    const account = await make.telegramAccount(owner, project);
    const channel = await make.channel(owner, account.id);
    env = {
      HERALD: `http://127.0.0.1:${port}/api/public/v1`,
      KEY: await make.apiKey(owner, { mode: 'test' }),
      NARROW: await make.apiKey(owner, { scopes: ['projects:read'] }),
      PROJECT: String(project.id),
      CHANNEL: channel.id,
      IMAGE: join(__dirname, 'fixtures', 'media', 'sample.png'),
    };
  });

  afterAll(async () => {
    await world?.close();
  });

  it('README and docs/ stand on their own: no decision numbers, no files outside the repository', () => {
    const root = join(__dirname, '..');
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
      'Authentication and scopes',
      'Errors and their codes',
      'Rate limits',
      'Post states',
      'Media rules',
      'Test mode',
    ])
      expect(sections).toContain(heading);
    // Each ```bash block is followed by its answer, so none escapes this test.
    expect(all).toHaveLength(guide.split('```bash').length - 1);
  });

  it('runs every example, in order, and each answers as documented', async () => {
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
        expect({ where, differences: differences(JSON.parse(example.expected), actual) }).toEqual({
          where,
          differences: [],
        });
      } else {
        for (const line of example.expected.trim().split('\n')) {
          const name = line.split(':')[0].toLowerCase();
          expect({ where, has: output.toLowerCase().includes(name) }).toEqual({ where, has: true });
        }
      }
    }
    // The test posts went through the pipeline and Telegram received nothing.
    expect(world.telegram.calls.filter((c) => c.method.startsWith('send'))).toEqual([]);
  }, 120_000);
});

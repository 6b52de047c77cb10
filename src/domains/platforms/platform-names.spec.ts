import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * Nothing outside a platform's folder names a platform: the generic code takes platforms as data,
 * so a new platform is a new folder and a line of registration. Migrations and docs live outside
 * src/ and may name them.
 */
const SRC = join(__dirname, '..', '..');
const NAMES = ['telegram', 'discord', 'mastodon', 'bluesky'];

/** Where a platform's name may appear outside its folder, each with why. Keep it short. */
const EXCEPTIONS: Record<string, string> = {
  'domains/platforms/platforms.module.ts': 'registration: the Nest modules of each platform',
  'domains/platforms/platform-list.ts':
    'registration: the platforms as plain data, read at module load',
  'domains/platforms/platform-names.spec.ts': 'this spec: the names it looks for',
  'infrastructure/config/config.ts':
    'AppConfig keeps the field and env names operators set and specs read (TELEGRAM_API_BASE_URL, …)',
  'infrastructure/config/environment.ts': 'the environment variables operators set, by their names',
  'infrastructure/config/config.spec.ts': 'reads those config fields and env names',
  'http/errors/error-codes.ts': "error codes are a closed public list; a platform's are among them",
  'domains/accounts/account.dto.ts':
    'the accounts body keeps its bot_token field, validation and examples as integrators know them',
  'domains/accounts/accounts.controller.ts':
    "the accounts routes' OpenAPI summaries and error codes",
  'domains/posts/dto/post-response.dto.ts':
    'OpenAPI examples of channel_ref and platform, message_ids said',
  'domains/posts/dto/create-post.dto.ts': 'an OpenAPI example channel_ref',
  'domains/posts/dto/post-body-examples.ts':
    "the OpenAPI example body's channel_ref (the demo channel)",
  'domains/channels/channel.dto.ts': 'OpenAPI examples of channel_ref and platform',
  'domains/posts/post-target.entity.ts':
    'message_ids keeps the integer ids of one platform, as answered',
  'domains/posts/posts.mapper.spec.ts': 'checks the answers built for that platform',
  'domains/platforms/simulated-publisher.spec.ts':
    'test mode simulates a real publisher: it takes one',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('platform names', () => {
  const files = sourceFiles(SRC).map((path) => relative(SRC, path).split(sep).join('/'));

  it('appear only in their own folder, registration and the listed exceptions', () => {
    const offenders: string[] = [];
    for (const file of files) {
      if (file in EXCEPTIONS) continue;
      const text = readFileSync(join(SRC, file), 'utf8').toLowerCase();
      for (const name of NAMES) {
        if (file.startsWith(`domains/platforms/${name}/`)) continue;
        if (text.includes(name)) offenders.push(`${file} names ${name}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('lists no exception that is gone or no longer needed', () => {
    const stale = Object.keys(EXCEPTIONS).filter(
      (file) =>
        !files.includes(file) ||
        !NAMES.some((name) => readFileSync(join(SRC, file), 'utf8').toLowerCase().includes(name)),
    );
    expect(stale).toEqual([]);
  });
});

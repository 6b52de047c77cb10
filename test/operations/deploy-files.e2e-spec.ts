import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The Compose file as the README's deployment section runs it. */
describe('docker-compose.yml', () => {
  const compose = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');

  /** The `ports:` entries of one service, as written. */
  function portsOf(service: string): string[] {
    const block = new RegExp(`^ {2}${service}:\\n((?: {4}.*\\n|\\n)*)`, 'm').exec(compose)?.[1];
    if (!block) throw new Error(`No service ${service} in docker-compose.yml`);
    const ports = /^ {4}ports:\n((?: {6}- .*\n)+)/m.exec(block)?.[1] ?? '';
    return [...ports.matchAll(/- "?([^"\n]+)"?/g)].map((m) => m[1]);
  }

  it('publishes Prometheus on loopback only: it has no sign-in and shows every scraped metric', () => {
    const ports = portsOf('prometheus');
    expect(ports.length).toBeGreaterThan(0);
    for (const port of ports) expect(port).toMatch(/^127\.0\.0\.1:/);
  });
});

/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. BENCH_CPU_PROF=dir in read-api.ts):
 * self time per package / file and the heaviest functions, so the costs of a request path can be
 * read without DevTools.
 *
 *   npx ts-node --transpile-only bench/cpu-profile-summary.ts <file.cpuprofile> [top=25]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('Usage: npx ts-node --transpile-only bench/cpu-profile-summary.ts <file> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const selfMicros = new Map<number, number>();
profile.samples.forEach((nodeId, index) => {
  selfMicros.set(nodeId, (selfMicros.get(nodeId) ?? 0) + (profile.timeDeltas[index] ?? 0));
});
const total = [...selfMicros.values()].reduce((sum, value) => sum + value, 0);

/** `node_modules/@nestjs/core/…` → `@nestjs/core`; our code → `herald:<path>`; else the kind. */
function owner(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1];
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const ours = /\/dist\/(.+)$/.exec(url);
  return ours ? `herald:${ours[1]}` : url;
}

const byOwner = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const node of profile.nodes) {
  const micros = selfMicros.get(node.id) ?? 0;
  if (micros === 0) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const who = owner(url, functionName);
  byOwner.set(who, (byOwner.get(who) ?? 0) + micros);
  const name = `${functionName || '(anonymous)'} ${who}${url ? `:${lineNumber + 1}` : ''}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
}

const percent = (micros: number) => `${((micros / total) * 100).toFixed(1).padStart(5)}%`;
const print = (title: string, rows: Map<string, number>) => {
  console.log(`\n${title}`);
  [...rows.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([name, micros]) => console.log(`${percent(micros)}  ${name}`));
};

console.log(`${file}: ${(total / 1e6).toFixed(1)} s of samples`);
print('Self time by package or file', byOwner);
print('Self time by function', byFunction);

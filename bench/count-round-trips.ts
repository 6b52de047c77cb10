/**
 * Preloaded into Herald's processes by bench/pipeline.ts (`-r`): counts the PostgreSQL statements
 * (every `query` a pg client sends, BEGIN and COMMIT included) and the Redis commands (every
 * command ioredis sends, those of Bull's scripts included), each also by kind (the statement's
 * first words, the command's name), and answers them on the IPC channel when the bench asks (a
 * signal would not do: Nest's shutdown hooks take them all). Bench-only: nothing in src/ loads it.
 */
import Redis from 'ioredis';
import { Client } from 'pg';

const counts = { pg: 0, redis: 0, kinds: {} as Record<string, number> };

/**
 * Kinds by what they are made from (a statement's text, a script's first key): working a kind out
 * at every call (a regular expression over a long statement) cost 2.5–3% of a Herald process's CPU
 * in the pipeline bench, counted in its CPU per post.
 */
const statementKinds = new Map<string, string>();
const commandKinds = new Map<string, string>();
const scriptKinds = new Map<string, string>();

function cached(cache: Map<string, string>, source: string, kind: (s: string) => string): string {
  let k = cache.get(source);
  if (k === undefined) cache.set(source, (k = kind(source)));
  return k;
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

function counting(
  proto: object,
  name: string,
  key: 'pg' | 'redis',
  kind: (arg: unknown) => string,
): void {
  const original = (proto as Record<string, Method>)[name];
  (proto as Record<string, Method>)[name] = function (this: unknown, ...args: unknown[]) {
    counts[key]++;
    const k = kind(args[0]);
    counts.kinds[k] = (counts.kinds[k] ?? 0) + 1;
    return original.apply(this, args);
  };
}

/** A statement's first words, enough to tell the statements apart. */
function statementKind(query: unknown): string {
  const text =
    typeof query === 'string' ? query : ((query as { text?: string } | undefined)?.text ?? '');
  return cached(
    statementKinds,
    text,
    (t) => `PostgreSQL ${t.replace(/\s+/g, ' ').trim().slice(0, 60)}`,
  );
}

function commandKind(command: unknown): string {
  const { name, args } = command as { name: string; args: unknown[] };
  // Bull's and Herald's scripts run by EVALSHA: the key names say which.
  if (name !== 'evalsha') return cached(commandKinds, name, (n) => `Redis ${n}`);
  return cached(scriptKinds, String(args[2] ?? ''), (key) => {
    const last = key.split(':').slice(-2).join(':');
    return `Redis evalsha ${last.replace(/-?\d+/g, 'N')}`;
  });
}

if (process.send) {
  counting(Client.prototype, 'query', 'pg', statementKind);
  counting(Redis.prototype, 'sendCommand', 'redis', commandKind);
  // The channel must not keep a process alive that is shutting down.
  process.channel?.unref();
  process.on('message', (message) => {
    if (message === 'round-trips') process.send?.({ roundTrips: counts });
  });
}

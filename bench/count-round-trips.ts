/**
 * Preloaded into Herald's processes by bench/pipeline.ts (`-r`): counts the PostgreSQL statements
 * (every `query` a pg client sends, BEGIN and COMMIT included) and the Redis commands (every
 * command ioredis sends, those of Bull's scripts included), and answers them on the IPC channel
 * when the bench asks (a signal would not do: Nest's shutdown hooks take them all). Bench-only:
 * nothing in src/ loads it.
 */
import Redis from 'ioredis';
import { Client } from 'pg';

const counts = { pg: 0, redis: 0 };

type Method = (this: unknown, ...args: unknown[]) => unknown;

function counting(proto: object, name: string, key: keyof typeof counts): void {
  const original = (proto as Record<string, Method>)[name];
  (proto as Record<string, Method>)[name] = function (this: unknown, ...args: unknown[]) {
    counts[key]++;
    return original.apply(this, args);
  };
}

if (process.send) {
  counting(Client.prototype, 'query', 'pg');
  counting(Redis.prototype, 'sendCommand', 'redis');
  // The channel must not keep a process alive that is shutting down.
  process.channel?.unref();
  process.on('message', (message) => {
    if (message === 'round-trips') process.send?.({ roundTrips: counts });
  });
}

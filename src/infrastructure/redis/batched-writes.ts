import type Redis from 'ioredis';

/** Corks the socket until this turn's callbacks ran, so many requests' commands share one write. */
export function batchSocketWrites(redis: Redis): void {
  const socket = redis.stream;
  if (redis.status !== 'ready' || socket.writableCorked > 0) return;
  socket.cork();
  setImmediate(() => socket.uncork());
}

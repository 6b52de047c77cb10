import type Redis from 'ioredis';

/**
 * Holds the client's socket writes until the event loop has run every callback that is ready now
 * (the requests read in this turn), then lets them leave together in one write system call: under
 * load the rate limiter's scripts of many requests share a write instead of paying one each.
 *
 * ioredis's own auto-pipelining batches the same way but builds a Pipeline per turn that copies
 * every command onto itself and stays reachable through a getter of its own; those Pipelines and
 * the answers awaiting them survived young-generation collections and lengthened their pauses.
 * Corking the socket batches with no object per batch. Saves a write system call per request
 * under load (docs/performance.md#coalesced-redis-writes).
 */
export function batchSocketWrites(redis: Redis): void {
  const socket = redis.stream;
  // Not connected yet (the command fails fast) or already held for this turn.
  if (redis.status !== 'ready' || socket.writableCorked > 0) return;
  socket.cork();
  setImmediate(() => socket.uncork());
}

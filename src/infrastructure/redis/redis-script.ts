import type Redis from 'ioredis';
import { createHash } from 'node:crypto';
import { batchSocketWrites } from './batched-writes';

/**
 * A Lua script run by its SHA1 (EVALSHA), so its text crosses the wire once per Redis server
 * rather than at every call; sent whole only when Redis does not know it yet (after a restart or
 * SCRIPT FLUSH). Scripts run in the same turn of the event loop leave in one write.
 */
export class RedisScript {
  private readonly sha: string;

  constructor(
    private readonly lua: string,
    private readonly numberOfKeys: number,
  ) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run(redis: Redis, keysAndArgs: (string | number)[]): Promise<unknown> {
    batchSocketWrites(redis);
    try {
      return await redis.evalsha(this.sha, this.numberOfKeys, ...keysAndArgs);
    } catch (error) {
      if (!(error as Error).message?.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.lua, this.numberOfKeys, ...keysAndArgs);
    }
  }
}

import type Redis from 'ioredis';
import { createHash } from 'node:crypto';
import { batchSocketWrites } from './batched-writes';

/** Run by SHA1 (EVALSHA), sent whole only when Redis does not know it yet. */
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

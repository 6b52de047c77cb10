import Redis from 'ioredis';

/** Removes what a test app left in Redis under its key prefix (Bull's queue keys do not expire). */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined); // a test that took Redis away has nothing to clean here
  try {
    await redis.connect();
    const stream = redis.scanStream({ match: `${prefix}:*`, count: 500 });
    for await (const keys of stream as AsyncIterable<string[]>) {
      if (keys.length > 0) await redis.unlink(...keys);
    }
  } catch {
    // Best effort: keys left behind hold no test's outcome.
  } finally {
    redis.disconnect();
  }
}

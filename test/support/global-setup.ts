import Redis from 'ioredis';
import { dropAbandonedTestDatabases } from './databases';

/** Fails fast with a clear line when PostgreSQL or Redis is not there, and clears abandoned test databases. */
export default async function globalSetup(): Promise<void> {
  // The AWS SDK warns once per process that its releases after January 2027 need Node 22; the
  // README says which Node versions Herald supports, and the test output keeps to the tests.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  try {
    await dropAbandonedTestDatabases();
  } catch (error) {
    throw new Error(`PostgreSQL is not reachable for tests: ${(error as Error).message}`);
  }
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`Redis is not reachable for tests: ${(error as Error).message}`);
  } finally {
    redis.disconnect();
  }
}

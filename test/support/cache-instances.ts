import { metricSample } from './expectations';
import { SwitchableRedis } from './switchable-redis';
import { startTestApp, TestApp } from './test-app';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';

/**
 * The environment of instances that remember keys and accesses (InvalidatedCache) far longer than
 * any test: what such an instance stops accepting, it stopped on hearing a change or on reading
 * the database, never because its memory ran out. Metrics on, for `lookups`.
 */
export const WITH_CACHES = {
  API_KEY_CACHE_MS: '300000',
  METRICS_TOKEN,
  RATE_LIMIT_OTHER: '100000',
};

/** How many lookups counted by `metric` the instance answered from `source`, so far. */
export async function lookups(
  app: TestApp,
  metric: 'herald_api_key_lookups_total' | 'herald_project_access_lookups_total',
  source: 'memory' | 'database',
): Promise<number> {
  const res = await app.http
    .get('/metrics')
    .set('Authorization', `Bearer ${METRICS_TOKEN}`)
    .expect(200);
  return metricSample(res.text, metric, { source }) ?? 0;
}

/** An instance of `WITH_CACHES` on a Redis of its own, which its test takes away and brings back. */
export interface InstanceWithOwnRedis {
  app: TestApp;
  redis: SwitchableRedis;
}

/**
 * Registers, in the enclosing `describe`, an instance sharing `shareWith()`'s database but on a
 * Redis of its own: started before the block's tests, stopped after them with its Redis back up.
 */
export function instanceWithOwnRedis(shareWith: () => TestApp): InstanceWithOwnRedis {
  const instance = {} as InstanceWithOwnRedis;
  beforeAll(async () => {
    instance.redis = await new SwitchableRedis().start();
    instance.app = await startTestApp(
      { ...WITH_CACHES, REDIS_URL: instance.redis.url },
      { shareWith: shareWith() },
    );
  });
  afterAll(async () => {
    if (instance.redis) instance.redis.up = true;
    await instance.app?.close();
    await instance.redis?.stop();
  });
  return instance;
}

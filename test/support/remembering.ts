import { metricSample } from './expectations';
import type { TestApp } from './test-app';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';

/**
 * The environment of instances that remember keys and accesses (AnnouncedMemory) far longer than
 * any test: what such an instance stops accepting, it stopped on hearing a change or on reading
 * the database, never because its memory ran out. Metrics on, for `lookups`.
 */
export const REMEMBER = {
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

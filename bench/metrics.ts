/**
 * What the metrics cost: request timing on (as deployed, METRICS_TOKEN set) against off
 * (METRICS_HTTP_ENABLED=false), rate limits on and raised out of the way. Target: metrics cost
 * under 5% of requests/s. The run itself: bench/feature-cost.ts.
 *
 *   npx ts-node --transpile-only bench/metrics.ts [rounds]
 */
import { measureFeatureCost } from './feature-cost';

measureFeatureCost(
  {
    name: 'metrics',
    targetPercent: 5,
    env: (enabled) => ({
      METRICS_TOKEN: 'bench-metrics-token-0123456789',
      METRICS_HTTP_ENABLED: String(enabled),
    }),
  },
  Number(process.argv[2] ?? 1),
).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

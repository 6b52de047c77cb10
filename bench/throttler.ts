/**
 * What the public API rate limits cost: limits on (raised out of the way, so every
 * request is counted in Redis and answered 200) against off (RATE_LIMIT_ENABLED=false). Target:
 * the throttler costs at most 15% of requests/s. The run itself: bench/feature-cost.ts.
 *
 *   npx ts-node --transpile-only bench/throttler.ts [rounds]
 */
import { measureFeatureCost } from './feature-cost';

measureFeatureCost(
  {
    name: 'throttler',
    targetPercent: 15,
    env: (enabled) => ({ RATE_LIMIT_ENABLED: String(enabled) }),
  },
  Number(process.argv[2] ?? 1),
).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

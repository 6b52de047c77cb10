import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerToken } from '../../domains/api-keys/api-key-format';
import type { AppConfig } from '../../infrastructure/config/config';
import { Metrics } from '../../infrastructure/metrics/metrics.service';
import { isMetricsToken } from './metrics-token.guard';

/** Only `GET /metrics` on METRICS_PORT, with the API route's token rules. */
export async function startMetricsServer(
  metrics: Metrics,
  config: AppConfig,
): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const answer = (status: number, code: string, message: string) =>
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code, message } }));
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics' || config.ops.metricsToken === null)
      return answer(404, 'not_found', 'Not found');
    if (!isMetricsToken(config, bearerToken(req.headers.authorization)))
      return answer(401, 'unauthorized', 'A valid metrics token is required');
    metrics.render().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => answer(500, 'internal_error', 'Metrics could not be collected'),
    );
  });
  server.listen(config.ops.metricsPort);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return { server, port: (server.address() as AddressInfo).port };
}

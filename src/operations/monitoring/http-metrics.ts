import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Metrics, UNMATCHED_ROUTE } from '../../infrastructure/metrics/metrics.service';

/**
 * Times every HTTP request into `herald_http_request_duration_seconds`. The route label is the
 * template Express matched (`/api/public/v1/projects/:projectId/posts`), read when the response
 * ends; a request no route matched (404s, bodies refused before routing) is `unmatched`.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const template = (req.route as { path?: unknown } | undefined)?.path;
      const route = typeof template === 'string' ? `${req.baseUrl}${template}` : UNMATCHED_ROUTE;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.httpRequest(req.method, route, res.statusCode, seconds);
    });
    next();
  };
}

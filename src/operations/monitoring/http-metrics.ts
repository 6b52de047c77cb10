import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Metrics, UNMATCHED_ROUTE } from '../../infrastructure/metrics/metrics.service';

/** Labelled by the route template Express matched, else UNMATCHED_ROUTE. */
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

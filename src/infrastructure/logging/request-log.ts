import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { PLATFORM_DESCRIPTORS } from '../../domains/platforms/platforms';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

const MASKS = PLATFORM_DESCRIPTORS.flatMap((platform) => platform.logMasks);

/** A caller's X-Request-Id when it is sane, else a new one; echoed on the answer. */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  req.id = id;
  res.setHeader('X-Request-Id', id);
  return id;
}

/** Never headers, query strings or bodies, and secret path segments are masked. */
export function requestLogger(logger: Logger) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const id = assignRequestId(req, res);
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const status = res.statusCode;
      // A 503 asks the client to come back (an outage, a stop): its cause is logged where found.
      const level = status >= 500 && status !== 503 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          req: { id, method: req.method, path: loggablePath(req.url) },
          res: { statusCode: status },
          responseTime: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
        },
        'request completed',
      );
    });
    next();
  };
}

function loggablePath(url: string | undefined): string {
  return MASKS.reduce(
    (path, { pattern, replacement }) => path.replace(pattern, replacement),
    (url ?? '').split('?')[0],
  );
}

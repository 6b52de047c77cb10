import { INestApplication, Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import type { Logger as PinoInstance } from 'pino';
import { QueueBoard } from './admin/queue-board';
import { AppModule } from './app.module';
import { APP_API_TAG, PUBLIC_API_PREFIX, PUBLIC_API_TAG } from './auth/decorators';
import { AppConfig } from './config/config';
import { sendError, toAppError } from './errors/all-exceptions.filter';
import { createValidationPipe } from './errors/validation';
import { jsonBody } from './input/json-body';
import { ROOT_LOGGER } from './logging/logging.module';
import { httpMetrics } from './metrics/http-metrics';
import { Metrics } from './metrics/metrics.service';
import { requestLogger } from './logging/request-log';

/** Builds the HTTP application exactly as production runs it; tests call this too. */
export async function createHttpApp(config: AppConfig): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: true,
  });
  configureApp(app, config);
  return app;
}

export function configureApp(app: NestExpressApplication, config: AppConfig): void {
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  // The client address (per-IP limits on failed authentication) comes through these proxies only.
  app.set('trust proxy', config.trustProxy);
  const errorLogger = new NestLogger('Errors');
  if (config.ops.httpMetrics) app.use(httpMetrics(app.get(Metrics)));
  app.use(requestLogger(app.get<PinoInstance>(ROOT_LOGGER)));
  // Body errors are held on the request and raised by RequestInputGuard, after the guards (D18).
  app.use(jsonBody());
  app.get(QueueBoard).mount(app);
  // Anything another middleware fails with happens before Nest's filters; same shape.
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    sendError(res, toAppError(error, errorLogger));
  });
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  setUpOpenApi(app);
}

function setUpOpenApi(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Herald')
    .setDescription(
      'Publishing backend. The public API lives under /api/public/v1 and takes `Authorization: Bearer hrld_live_…`. ' +
        'Every error answers `{ error: { code, message } }`.',
    )
    .setVersion('1')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: 'API key: hrld_live_<public>.<secret>, or hrld_test_… in test mode',
      },
      'api-key',
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'Session token from /api/auth/login' },
      'session',
    )
    .addTag(PUBLIC_API_TAG, 'Versioned API for integrators, authenticated with API keys')
    .addTag(APP_API_TAG, 'The internal frontend’s API, authenticated with session tokens')
    .build();
  const full = SwaggerModule.createDocument(app, config);
  documentRateLimitHeaders(full, `/${PUBLIC_API_PREFIX}/`);
  const publicOnly = onlyPaths(full, `/${PUBLIC_API_PREFIX}/`);
  const http = app.getHttpAdapter();
  http.get(`/${PUBLIC_API_PREFIX}/openapi.json`, (_req: Request, res: Response) =>
    res.json(publicOnly),
  );
  http.get('/api/openapi.json', (_req: Request, res: Response) => res.json(full));
  SwaggerModule.setup('api/docs', app, full, { jsonDocumentUrl: 'api/docs/openapi.json' });
}

function onlyPaths(document: OpenAPIObject, prefix: string): OpenAPIObject {
  const paths = Object.fromEntries(
    Object.entries(document.paths).filter(([path]) => path.startsWith(prefix)),
  );
  return { ...document, paths, tags: document.tags?.filter((tag) => tag.name === PUBLIC_API_TAG) };
}

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed per window in this route’s category',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Reset': {
    description: 'Unix epoch seconds at which the window resets (D11)',
    schema: { type: 'integer' },
  },
};

/** D11: every authenticated public answer carries the X-RateLimit-* headers; a 429 adds Retry-After. */
function documentRateLimitHeaders(document: OpenAPIObject, prefix: string): void {
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith(prefix)) continue;
    for (const operation of [item.get, item.post, item.put, item.patch, item.delete]) {
      for (const [status, response] of Object.entries(operation?.responses ?? {})) {
        if (status === '401' || !response || !('description' in response)) continue;
        response.headers = {
          ...response.headers,
          ...RATE_LIMIT_HEADERS,
          ...(status === '429'
            ? {
                'Retry-After': {
                  description: 'Whole seconds until the window resets, at least 1',
                  schema: { type: 'integer' },
                },
              }
            : {}),
        };
      }
    }
  }
}

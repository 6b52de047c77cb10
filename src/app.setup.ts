import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import type { Logger as PinoInstance } from 'pino';
import { QueueBoard } from './operations/admin/queue-board';
import { AppModule } from './app.module';
import { AppConfig } from './infrastructure/config/config';
import { sendError, toAppError } from './http/errors/all-exceptions.filter';
import { createValidationPipe } from './http/errors/validation';
import { HeraldExpressAdapter } from './http/express-adapter';
import { jsonBody } from './http/input/json-body';
import { ROOT_LOGGER } from './infrastructure/logging/logging.module';
import { httpMetrics } from './operations/monitoring/http-metrics';
import { Metrics } from './infrastructure/metrics/metrics.service';
import { requestLogger } from './infrastructure/logging/request-log';
import { McpService } from './domains/mcp/mcp.service';
import { buildOpenApiDocuments, serveOpenApi } from './http/openapi/openapi';
import { InFlightRequests } from './infrastructure/shutdown/in-flight-requests';

/** Exactly as production runs it; tests call this too. */
export async function createHttpApp(config: AppConfig): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config),
    new HeraldExpressAdapter(),
    { bodyParser: false, bufferLogs: true },
  );
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
  app.use(app.get(InFlightRequests).middleware());
  // Body errors are held on the request and raised by RequestInputGuard, after the other guards.
  app.use(jsonBody());
  app.get(QueueBoard).mount(app);
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    sendError(res, toAppError(error, errorLogger));
  });
  app.useGlobalPipes(createValidationPipe());
  const documents = buildOpenApiDocuments(app, config);
  app.get(McpService).describeTools(documents.full);
  serveOpenApi(app, documents);
}

import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { createHttpApp } from './app.setup';
import { ConfigError, loadConfig, readEnvironment } from './config/config';
import { startMetricsServer } from './metrics/metrics-server';
import { Metrics } from './metrics/metrics.service';
import { stopOnSignals } from './shutdown/stop-on-signals';

async function bootstrap(): Promise<void> {
  let config;
  try {
    config = loadConfig(readEnvironment());
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  if (config.appRole === 'worker') {
    // A worker consumes the publication queue and serves no HTTP.
    const context = await NestFactory.createApplicationContext(AppModule.forRoot(config), {
      bufferLogs: true,
    });
    const logger = context.get(Logger);
    context.useLogger(logger);
    if (config.ops.metricsToken === null) {
      stopOnSignals(context, config.ops.shutdownTimeoutMs, logger);
      logger.log(`Herald worker started`);
      return;
    }
    // A worker serves no API; Prometheus scrapes it on METRICS_PORT.
    const metrics = await startMetricsServer(context.get(Metrics), config);
    stopOnSignals(context, config.ops.shutdownTimeoutMs, logger, async () => {
      metrics.server.close();
      metrics.server.closeIdleConnections();
    });
    logger.log(`Herald worker started; metrics on port ${metrics.port}`);
    return;
  }

  const app = await createHttpApp(config);
  stopOnSignals(app, config.ops.shutdownTimeoutMs, app.get(Logger));
  await app.listen(config.port);
  app.get(Logger).log(`Herald (${config.appRole}) listening on port ${config.port}`);
}

void bootstrap();

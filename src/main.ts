import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { createHttpApp } from './app.setup';
import { ConfigError, loadConfig, readEnvironment } from './config/config';
import { startMetricsServer } from './metrics/metrics-server';
import { Metrics } from './metrics/metrics.service';

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
    context.useLogger(context.get(Logger));
    context.enableShutdownHooks();
    if (config.ops.metricsToken === null) {
      context.get(Logger).log(`Herald worker started`);
      return;
    }
    // A worker serves no API; Prometheus scrapes it on METRICS_PORT.
    const metrics = await startMetricsServer(context.get(Metrics), config);
    process.once('SIGTERM', () => metrics.server.close());
    context.get(Logger).log(`Herald worker started; metrics on port ${metrics.port}`);
    return;
  }

  const app = await createHttpApp(config);
  await app.listen(config.port);
  app.get(Logger).log(`Herald (${config.appRole}) listening on port ${config.port}`);
}

void bootstrap();

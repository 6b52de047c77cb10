import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import type { Server } from 'node:http';
import { AppModule } from './app.module';
import { createHttpApp } from './app.setup';
import {
  AppConfig,
  ConfigError,
  loadConfig,
  readEnvironment,
} from './infrastructure/config/config';
import { startMetricsServer } from './operations/monitoring/metrics-server';
import { Metrics } from './infrastructure/metrics/metrics.service';
import { stopOnSignals } from './infrastructure/shutdown/stop-on-signals';

interface Role {
  app: INestApplicationContext;
  /** Answers the line that says so. */
  serve(): Promise<string>;
  closeFirst?: () => Promise<void>;
}

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

  const role = config.appRole === 'worker' ? await worker(config) : await httpServer(config);
  const logger = role.app.get(Logger);
  stopOnSignals(role.app, config.ops.shutdownTimeoutMs, logger, role.closeFirst);
  logger.log(await role.serve());
}

/** `api` and `all` (an `all` process also consumes the queues). */
async function httpServer(config: AppConfig): Promise<Role> {
  const app = await createHttpApp(config);
  return {
    app,
    serve: async () => {
      await app.listen(config.port);
      return `Herald (${config.appRole}) listening on port ${config.port}`;
    },
  };
}

/** Serves no API; with METRICS_TOKEN set, Prometheus scrapes it on METRICS_PORT. */
async function worker(config: AppConfig): Promise<Role> {
  const context = await NestFactory.createApplicationContext(AppModule.forRoot(config), {
    bufferLogs: true,
  });
  context.useLogger(context.get(Logger));
  let metrics: Server | undefined;
  return {
    app: context,
    serve: async () => {
      if (config.ops.metricsToken === null) return 'Herald worker started';
      const started = await startMetricsServer(context.get(Metrics), config);
      metrics = started.server;
      return `Herald worker started; metrics on port ${started.port}`;
    },
    closeFirst: async () => {
      metrics?.close();
      metrics?.closeIdleConnections();
    },
  };
}

void bootstrap();

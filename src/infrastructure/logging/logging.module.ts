import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import pino, { Logger as PinoInstance } from 'pino';
import type { AppConfig, LogLevel } from '../config/config';
import { APP_CONFIG } from '../config/config.module';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/** `api` log lines leave in batches of this many bytes (docs/performance.md#batched-log-lines). */
export const LOG_BATCH_BYTES = 8192;
export const LOG_FLUSH_INTERVAL_MS = 200;

/** Asynchronous; `batched` also waits for LOG_BATCH_BYTES or LOG_FLUSH_INTERVAL_MS. */
export function rootLogger(level: LogLevel, batched = false): PinoInstance {
  const destination = pino.destination({
    dest: 1,
    sync: false,
    ...(batched ? { minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_INTERVAL_MS } : {}),
  });
  return pino({ level }, destination);
}

export function rootLoggerFor(config: Pick<AppConfig, 'logLevel' | 'appRole'>): PinoInstance {
  return rootLogger(config.logLevel, config.appRole === 'api');
}

@Module({
  providers: [
    {
      provide: ROOT_LOGGER,
      inject: [APP_CONFIG],
      useFactory: rootLoggerFor,
    },
  ],
  exports: [ROOT_LOGGER],
})
class RootLoggerModule {}

/** Our own request line, no pino-http child per request (docs/performance.md#one-request-line). */
@Module({
  imports: [
    RootLoggerModule,
    LoggerModule.forRootAsync({
      imports: [RootLoggerModule],
      inject: [ROOT_LOGGER],
      useFactory: (logger: PinoInstance) => ({ pinoHttp: { logger }, forRoutes: [] }),
    }),
  ],
  exports: [RootLoggerModule],
})
export class LoggingModule {}

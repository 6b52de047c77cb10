import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import pino, { Logger as PinoInstance } from 'pino';
import type { AppConfig, LogLevel } from '../config/config';
import { APP_CONFIG } from '../config/config.module';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/**
 * An `api` process's log lines leave in batches of at least this many bytes (a few dozen request
 * lines): every write to standard output is a system call handed to a libuv thread and, on a pipe
 * (a container's log, systemd), a wake-up of the reader. Saves that per request
 * (docs/performance.md#batched-log-lines).
 */
export const LOG_BATCH_BYTES = 8192;
/** A batch that has not filled up is written out after at most this long. */
export const LOG_FLUSH_INTERVAL_MS = 200;

/**
 * The process's one pino instance, at LOG_LEVEL, writing to standard output asynchronously: a line
 * does not hold up the work that logged it, the lines logged while a write is under way go out
 * together in the next one, and pino writes out what is left when the process exits. `batched`
 * (the `api` role): lines also wait for LOG_BATCH_BYTES or LOG_FLUSH_INTERVAL_MS. A process that
 * delivers posts writes each line at once: its sends are timed against a platform's limits, and
 * with batched lines it drew more rate-limit answers (docs/performance.md#batched-log-lines).
 */
export function rootLogger(level: LogLevel, batched = false): PinoInstance {
  const destination = pino.destination({
    dest: 1,
    sync: false,
    ...(batched ? { minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_INTERVAL_MS } : {}),
  });
  return pino({ level }, destination);
}

/** The root logger of a process with this configuration: batched in the `api` role only. */
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

/**
 * JSON lines through one pino instance: Nest's own logs via nestjs-pino's `Logger`, and one line
 * per request from `requestLogger` (request-log.ts). nestjs-pino's per-request middleware
 * (pino-http, a child logger and an async context for every request) is left off, and our request
 * line carries the request id. Saves a large share of a simple read's CPU
 * (docs/performance.md#one-request-line).
 */
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

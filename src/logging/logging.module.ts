import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import pino, { Logger as PinoInstance } from 'pino';
import type { AppConfig, LogLevel } from '../config/config';
import { APP_CONFIG } from '../config/config.module';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/**
 * Log lines leave in batches of at least this many bytes (a few dozen request lines): every write
 * to standard output is a system call handed to a libuv thread and, on loopback and container
 * pipes, a wake-up of the reader, which cost a read's answer more CPU than all of its own guards
 * (bench/README.md, issue 14).
 */
export const LOG_BATCH_BYTES = 8192;
/** A batch that has not filled up is written out after at most this long. */
export const LOG_FLUSH_INTERVAL_MS = 200;

/**
 * The process's one pino instance, at LOG_LEVEL, writing to standard output asynchronously and in
 * batches: a line does not hold up the request that logged it, lines go out together once
 * LOG_BATCH_BYTES have gathered or LOG_FLUSH_INTERVAL_MS have passed, and pino writes out what is
 * left when the process exits.
 */
export function rootLogger(level: LogLevel): PinoInstance {
  const destination = pino.destination({
    dest: 1,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    periodicFlush: LOG_FLUSH_INTERVAL_MS,
  });
  return pino({ level }, destination);
}

@Module({
  providers: [
    {
      provide: ROOT_LOGGER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): PinoInstance => rootLogger(config.logLevel),
    },
  ],
  exports: [ROOT_LOGGER],
})
class RootLoggerModule {}

/**
 * JSON lines through one pino instance: Nest's own logs via nestjs-pino's `Logger`, and one line
 * per request from `requestLogger` (request-log.ts). nestjs-pino's per-request middleware
 * (pino-http, a child logger and an async context for every request) is left off: it cost about a
 * third of a simple read's CPU (bench/README.md), and our request line carries the request id.
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

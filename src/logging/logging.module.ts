import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import pino, { Logger as PinoInstance } from 'pino';
import type { AppConfig, LogLevel } from '../config/config';
import { APP_CONFIG } from '../config/config.module';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/**
 * The process's one pino instance, at LOG_LEVEL, writing to standard output asynchronously: a line
 * does not hold up the request that logged it, and the lines logged while a write is under way go
 * out together in the next one (one write per line cost a read's answer a system call). Nothing is
 * held back on purpose, and pino writes out what is left when the process exits.
 */
export function rootLogger(level: LogLevel): PinoInstance {
  return pino({ level }, pino.destination({ dest: 1, sync: false }));
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

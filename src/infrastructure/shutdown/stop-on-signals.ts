import type { INestApplicationContext, LoggerService } from '@nestjs/common';
import { InFlightRequests } from './in-flight-requests';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * How the process stops, in place of Nest's enableShutdownHooks, which ends the process with
 * the signal itself rather than an exit code and waits without a bound. On SIGTERM or SIGINT,
 * app.close() runs Nest's hooks in their phases: requests in flight finish and new ones are
 * refused (InFlightRequests, onModuleDestroy); timers stop and queues finish their jobs in hand
 * (beforeApplicationShutdown); only then do the database pool and Redis close
 * (onApplicationShutdown). Exit 0 when all that is done; past `timeoutMs`, or at a second signal,
 * exit 1 at once, leaving the pool open under whatever still runs: its clients lose their
 * connection, and its jobs are taken over like a crashed worker's (lock expiry, recovery sweep).
 * `before` runs first (a worker's metrics listener closes).
 */
export function stopOnSignals(
  app: INestApplicationContext,
  timeoutMs: number,
  logger: LoggerService,
  before: () => Promise<void> = async () => undefined,
): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(`${signal} again: exiting without waiting`, 'Shutdown');
      process.exit(1);
    }
    stopping = true;
    const requests = app.get(InFlightRequests);
    logger.log(
      `${signal}: stopping, waiting at most ${timeoutMs} ms for the work in hand`,
      'Shutdown',
    );
    setTimeout(() => {
      logger.warn(
        `Not stopped within ${timeoutMs} ms (${requests.count} request(s) still in flight): exiting`,
        'Shutdown',
      );
      process.exit(1);
    }, timeoutMs).unref();
    try {
      await before();
      await app.close();
    } catch (error) {
      logger.error(`Stopping failed: ${(error as Error).stack ?? String(error)}`, 'Shutdown');
      process.exit(1);
    }
    logger.log('Stopped', 'Shutdown');
    process.exit(0);
  };
  for (const signal of SIGNALS) process.on(signal, (received) => void stop(received));
}

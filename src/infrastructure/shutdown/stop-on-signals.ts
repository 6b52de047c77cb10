import type { INestApplicationContext, LoggerService } from '@nestjs/common';
import { InFlightRequests } from './in-flight-requests';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** Instead of enableShutdownHooks: a bounded app.close(), then an exit code, not the signal. */
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

import { Logger } from '@nestjs/common';
import Bull from 'bull';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { closeQueue, startWorker } from './bull-queue';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The worker start that the publication and webhook processors share, on the real Redis. */
describe('startWorker (real Redis)', () => {
  const prefix = `herald-test-${randomBytes(6).toString('hex')}`;

  afterAll(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('logs nothing when its loop ends because the queue was closed, even by a failed close', async () => {
    // Bull's typings leave out disconnect(), which its close() ends with.
    const queue = new Bull('worker-end', REDIS_URL, { prefix }) as Bull.Queue & {
      disconnect(): Promise<void>;
    };
    const logger = new Logger('test');
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    startWorker(queue, 1, async () => undefined, logger, 'Test');
    await queue.isReady();
    // With Redis away, ending the connections fails the close, and Bull ends its loop with that.
    const disconnect = queue.disconnect.bind(queue);
    jest
      .spyOn(queue, 'disconnect')
      .mockImplementationOnce(() =>
        disconnect().then(() => Promise.reject(new Error('Connection is closed.'))),
      );
    await queue.close().catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(error).not.toHaveBeenCalled();
    await queue.disconnect();
  });

  it('logs a worker that stopped while the queue was not closing', async () => {
    const queue = new Bull('worker-start', 'redis://127.0.0.1:1', {
      prefix,
      redis: { maxRetriesPerRequest: 0, retryStrategy: () => null },
    });
    queue.on('error', () => undefined);
    const logger = new Logger('test');
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    jest.spyOn(logger, 'debug').mockImplementation(() => undefined);
    startWorker(queue, 1, async () => undefined, logger, 'Test');
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (error.mock.calls.length === 0) return;
        clearInterval(poll);
        resolve();
      }, 20);
    });
    expect(error.mock.calls[0][0]).toMatch(/^Test worker stopped: /);
    await queue.close().catch(() => undefined);
  });

  it('a clean close with Redis healthy is never taken for Redis away while Bull closes its own connections', async () => {
    const queue = new Bull('clean-close', REDIS_URL, { prefix }) as Bull.Queue & {
      disconnect(): Promise<void>;
    };
    const logger = new Logger('test');
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    await queue.isReady();
    // Bull's last step closes its connections; here one is closed already while the rest take
    // longer than the close's next check of Redis.
    const disconnect = queue.disconnect.bind(queue);
    jest.spyOn(queue, 'disconnect').mockImplementationOnce(async () => {
      await queue.client.quit();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await disconnect();
    });
    await closeQueue(queue, logger, 1_000);
    expect(warn).not.toHaveBeenCalled();
  });
});

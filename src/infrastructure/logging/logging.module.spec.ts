import { spawn } from 'node:child_process';
import pino from 'pino';
import { LOG_BATCH_BYTES, rootLoggerFor } from './logging.module';

const LOGGING_MODULE = JSON.stringify(`${__dirname}/logging.module`);

/** A script preamble that counts the non-empty writes to standard output in `writes`. */
const COUNT_WRITES = `
  const fs = require('node:fs');
  const write = fs.write;
  let writes = 0;
  fs.write = function (fd, data, ...rest) {
    if (fd === 1 && data.length > 0) writes += 1;
    return write.call(this, fd, data, ...rest);
  };`;

/** Runs `script` in a Node process of its own; resolves with its output once it exits with 0. */
function runScript(script: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-r', require.resolve('ts-node/register/transpile-only'), '-e', script],
      { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve({ stdout, stderr })
        : reject(new Error(`exited with ${code}: ${stderr}`)),
    );
  });
}

/** The JSON lines a script wrote to standard output. */
function jsonLines<T>(stdout: string): T[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as T);
}

/**
 * The root logger writes asynchronously; stopping ends with process.exit (stopOnSignals), which
 * waits for no pending write. In a process of its own, since the exit is the point.
 */
describe('rootLogger', () => {
  it.each([false, true])(
    'writes out every line logged before process.exit, the last one included (batched: %s)',
    async (batched) => {
      const lines = 20_000;
      const { stdout } = await runScript(`
        const logger = require(${LOGGING_MODULE}).rootLogger('info', ${batched});
        for (let i = 0; i < ${lines}; i++) logger.info({ i }, 'line');
        logger.info('Stopped');
        process.exit(0);`);
      const logged = jsonLines<{ msg: string; i?: number }>(stdout);
      expect(logged).toHaveLength(lines + 1);
      expect(logged.at(-1)?.msg).toBe('Stopped');
      expect(logged.slice(0, -1).every((line, i) => line.i === i)).toBe(true);
    },
  );

  // A write per line is a system call and a reader's wake-up per request.
  it('gathers lines logged one event-loop turn apart into one write (batched)', async () => {
    const lines = 40;
    // Each line is ~100 bytes, so all of them together stay under one batch.
    expect(lines * 120).toBeLessThan(LOG_BATCH_BYTES);
    // Nothing else is logged after the lines: the periodic flush writes the batch; the process
    // stays up until it has, then reports the count of writes on standard error.
    const { stdout, stderr } = await runScript(`${COUNT_WRITES}
      const logger = require(${LOGGING_MODULE}).rootLogger('info', true);
      let i = 0;
      const next = () => {
        logger.info({ i }, 'line');
        if (++i < ${lines}) return setImmediate(next);
        const poll = setInterval(() => {
          if (writes > 0) {
            clearInterval(poll);
            process.stderr.write(String(writes));
          }
        }, 5);
      };
      next();`);

    expect(stderr).toBe('1');
    expect(jsonLines<{ i: number }>(stdout).map((line) => line.i)).toEqual([
      ...Array(lines).keys(),
    ]);
  });

  it('writes a lone line out without waiting for more, while the process keeps running (batched)', async () => {
    // The process logs one line, then waits until its own standard output has been written to
    // before it exits by itself: only the periodic flush can end it.
    const { stdout } = await runScript(`${COUNT_WRITES}
      const logger = require(${LOGGING_MODULE}).rootLogger('info', true);
      logger.info('alone');
      const poll = setInterval(() => writes > 0 && clearInterval(poll), 5);`);
    expect(jsonLines(stdout)).toEqual([expect.objectContaining({ msg: 'alone' })]);
  });

  it('batches in the api role only: a worker or an all-in-one process writes each line at once', () => {
    const minLength = (role: 'api' | 'worker' | 'all') => {
      const logger = rootLoggerFor({ logLevel: 'silent', appRole: role });
      const stream = (logger as unknown as Record<symbol, { minLength: number }>)[
        pino.symbols.streamSym
      ];
      return stream.minLength;
    };
    expect(minLength('api')).toBe(LOG_BATCH_BYTES);
    expect(minLength('worker')).toBe(0);
    expect(minLength('all')).toBe(0);
  });
});

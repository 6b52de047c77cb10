import { execFileSync } from 'node:child_process';

/**
 * The root logger writes asynchronously; stopping ends with process.exit (stopOnSignals), which
 * waits for no pending write. In a process of its own, since the exit is the point.
 */
describe('rootLogger', () => {
  it('writes out every line logged before process.exit, the last one included', () => {
    const lines = 20_000;
    const script = `
      const logger = require(${JSON.stringify(`${__dirname}/logging.module`)}).rootLogger('info');
      for (let i = 0; i < ${lines}; i++) logger.info({ i }, 'line');
      logger.info('Stopped');
      process.exit(0);`;
    const output = execFileSync(
      process.execPath,
      ['-r', require.resolve('ts-node/register/transpile-only'), '-e', script],
      { env: { PATH: process.env.PATH }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    const logged = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; i?: number });
    expect(logged).toHaveLength(lines + 1);
    expect(logged.at(-1)?.msg).toBe('Stopped');
    expect(logged.slice(0, -1).every((line, i) => line.i === i)).toBe(true);
  });
});

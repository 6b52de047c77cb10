import 'reflect-metadata';
import { ConfigError, loadConfig, readEnvironment } from '../../infrastructure/config/config';
import { runCli } from './commands';

/** What a command prints is its answer to the operator (keys, passwords), not a log line. */
const answer = (line: string): void => void process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  try {
    const config = loadConfig(readEnvironment());
    process.exitCode = await runCli(process.argv.slice(2), config, {
      out: answer,
    });
  } catch (error) {
    const message =
      error instanceof ConfigError ? error.message : `Failed: ${(error as Error).message}`;
    process.stderr.write(`${message}\n`);
    process.exitCode = 1;
  }
}

void main();

import 'reflect-metadata';
import { ConfigError, loadConfig, readEnvironment } from '../../infrastructure/config/config';
import { runCli } from './commands';

async function main(): Promise<void> {
  try {
    const config = loadConfig(readEnvironment());
    process.exitCode = await runCli(process.argv.slice(2), config, {
      out: (line) => console.log(line),
    });
  } catch (error) {
    console.error(
      error instanceof ConfigError ? error.message : `Failed: ${(error as Error).message}`,
    );
    process.exitCode = 1;
  }
}

void main();

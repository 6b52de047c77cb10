/**
 * An S3-protocol stand-in in a process of its own, so that the upload benchmark can tell its CPU
 * and memory apart from Herald's and from the client's: `s3rver` (the tests' server,
 * test/support/s3-server.ts) or `lean` (bench/s3-lean-server.ts), named by the first argument.
 * Prints one line of JSON, the variables that point Herald at it, then serves until SIGTERM.
 */
import { S3TestServer } from '../test/support/s3-server';
import { LeanS3Server } from './s3-lean-server';

async function main(): Promise<void> {
  const kind = process.argv[2];
  if (kind !== 's3rver' && kind !== 'lean') throw new Error(`Unknown stand-in: ${kind}`);
  const server = await (kind === 'lean' ? new LeanS3Server() : new S3TestServer()).start();
  process.stdout.write(`${JSON.stringify(server.env())}\n`);
  process.once('SIGTERM', () => {
    void server.stop().then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

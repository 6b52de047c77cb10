/**
 * The S3-protocol stand-in (s3rver, test/support/s3-server.ts) in a process of its own, so that
 * the upload benchmark can tell its CPU and memory apart from Herald's and from the client's.
 * Prints one line of JSON, the variables that point Herald at it, then serves until SIGTERM.
 */
import { S3TestServer } from '../test/support/s3-server';

async function main(): Promise<void> {
  const server = await new S3TestServer().start();
  process.stdout.write(`${JSON.stringify(server.env())}\n`);
  process.once('SIGTERM', () => {
    void server.stop().then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

import { once } from 'node:events';
import { AddressInfo, createServer } from 'node:net';

/** A port nothing listens on right now, for a process a test starts (which must be told one). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

import { createConnection, createServer, Server, Socket } from 'node:net';
import { TEST_REDIS_URL } from './test-app';

const REDIS_PORT = Number(new URL(TEST_REDIS_URL).port || 6379);

/**
 * A TCP proxy to the real Redis that can be switched off: connections are refused or cut. It
 * starts up; `down()` cuts it, `up = true` brings it back.
 */
export class SwitchableRedis {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  up = true;
  /** How long connections that start by naming themselves (CLIENT SETNAME) wait for Redis. */
  namedConnectionDelayMs = 0;

  get url(): string {
    const address = this.server!.address() as { port: number };
    return `redis://127.0.0.1:${address.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((client) => {
      if (!this.up) return client.destroy();
      this.track(client);
      client.once('data', (first: Buffer) => {
        const forward = () => {
          if (client.destroyed) return;
          const upstream = this.track(createConnection(REDIS_PORT, '127.0.0.1'));
          upstream.write(first);
          client.pipe(upstream).pipe(client);
        };
        // A connection that names itself first (Bull's worker connection) can be made to wait.
        const named = /setname/i.test(first.toString('latin1'));
        if (named && this.namedConnectionDelayMs > 0)
          setTimeout(forward, this.namedConnectionDelayMs);
        else forward();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  private track(socket: Socket): Socket {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    return socket;
  }

  /** Client connections still open through the proxy. */
  get openConnections(): number {
    return [...this.sockets].filter((socket) => socket.remotePort !== REDIS_PORT).length;
  }

  down(): void {
    this.up = false;
    for (const socket of this.sockets) socket.destroy();
  }

  async stop(): Promise<void> {
    this.down();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}

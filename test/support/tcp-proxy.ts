import { createConnection, createServer, Server, Socket } from 'node:net';

/**
 * A switchable TCP proxy in front of a shared server (PostgreSQL, Redis), so a test can take the
 * server away from one app without touching the server itself. `cut('refuse')` drops every
 * connection and refuses new ones (a stopped server); `cut('blackhole')` drops them and then
 * accepts connections that never answer (a hung server or a dead network). `restore()` heals.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private mode: 'open' | 'refuse' | 'blackhole' = 'open';

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    const address = this.server?.address();
    if (!address || typeof address === 'string') throw new Error('proxy not started');
    return address.port;
  }

  cut(mode: 'refuse' | 'blackhole' = 'refuse'): void {
    this.mode = mode;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.mode = 'open';
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private accept(client: Socket): void {
    this.track(client);
    if (this.mode === 'refuse') {
      client.destroy();
      return;
    }
    if (this.mode === 'blackhole') return; // held open, never answered
    const upstream = createConnection(this.targetPort, this.targetHost);
    this.track(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
  }
}

import { createConnection, createServer, Server, Socket } from 'node:net';

type ProxyMode = 'open' | 'refuse' | 'blackhole' | 'stall';

/**
 * A switchable TCP proxy in front of a shared server (PostgreSQL, Redis), so a test can take the
 * server away from one app without touching the server itself. `cut('refuse')` drops every
 * connection and refuses new ones (a stopped server); `cut('blackhole')` drops them and then
 * accepts connections that never answer (a dead network); `cut('stall')` keeps every connection
 * open but forwards nothing more either way, and accepts new ones that never answer (a hung
 * server: the client still believes its connection ready). `restore()` heals; the connections
 * held silent are dropped then (their conversation lost its thread), so clients reconnect.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private mode: ProxyMode = 'open';
  /** Connections held open without an answer, dropped when the cut ends. */
  private readonly silenced = new Set<Socket>();

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

  cut(mode: Exclude<ProxyMode, 'open'> = 'refuse'): void {
    this.mode = mode;
    if (mode === 'stall') {
      for (const socket of this.sockets) this.silenced.add(socket);
      return;
    }
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.mode = 'open';
    for (const socket of this.silenced) socket.destroy();
    this.silenced.clear();
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
    if (this.mode !== 'open') {
      this.silenced.add(client); // held open, never answered
      return;
    }
    const upstream = createConnection(this.targetPort, this.targetHost);
    this.track(upstream);
    // Forwarded chunk by chunk rather than piped, so that a stall can silence a live connection.
    const forward = (to: Socket) => (chunk: Buffer) => {
      if (!this.silenced.has(client)) to.write(chunk);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
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

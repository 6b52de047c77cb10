import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export type RemoteHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  server: RemoteFileServer,
) => void;

/**
 * A plain HTTP server on a chosen local address, standing in for the internet in media-by-link
 * tests. It counts every request it receives, so a test can prove a refused URL was never fetched.
 */
export class RemoteFileServer {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly routes = new Map<string, RemoteHandler>();
  /** Paths requested, in order. */
  readonly hits: string[] = [];
  /** Responses that were closed before they finished (the client stopped reading). */
  readonly abandoned: string[] = [];
  port = 0;

  /** `tls` makes it an HTTPS server with that key and certificate. */
  constructor(
    readonly host: string,
    private readonly tls?: { key: Buffer; cert: Buffer },
  ) {}

  route(path: string, handler: RemoteHandler): this {
    this.routes.set(path, handler);
    return this;
  }

  async start(port = 0): Promise<this> {
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      this.hits.push(path);
      res.on('close', () => {
        if (!res.writableFinished) this.abandoned.push(path);
      });
      res.on('error', () => undefined);
      const handler = this.routes.get(path);
      if (handler) handler(req, res, this);
      else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    };
    this.server = this.tls ? createTlsServer(this.tls, handle) : createServer(handle);
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, this.host, () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** `http(s)://<host>:<port><path>`, with brackets around an IPv6 host. */
  url(path = '/', host = this.host.includes(':') ? `[${this.host}]` : this.host): string {
    return `${this.tls ? 'https' : 'http'}://${host}:${this.port}${path}`;
  }

  hitsOf(path: string): number {
    return this.hits.filter((hit) => hit === path).length;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}

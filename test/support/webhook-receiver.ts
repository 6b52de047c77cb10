import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedDelivery {
  path: string;
  id: string;
  timestamp: string;
  /** The body as the third-party verifier returned it, after checking the signature. */
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  headers: IncomingMessage['headers'];
}

/** How the receiver answers one request. */
export interface ReceiverAnswer {
  status?: number;
  /** Answer only after this long (longer than WEBHOOK_TIMEOUT_MS: a time-out). */
  delayMs?: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A webhook receiver on 127.0.0.1 (or another loopback address). Every request to a path whose
 * secret is registered is verified with the `standardwebhooks` package, a third-party verifier;
 * a request it rejects lands in `rejected`, which the tests assert stays empty.
 */
export class WebhookReceiver {
  readonly deliveries: ReceivedDelivery[] = [];
  readonly rejected: { path: string; reason: string }[] = [];
  /** Every request, verified or not (a redirect target, a path nobody registered). */
  readonly hits: string[] = [];
  private readonly secrets = new Map<string, string>();
  private readonly scripts = new Map<string, ReceiverAnswer[]>();
  /** TCP connections accepted. */
  connections = 0;
  private readonly pending = new Set<ServerResponse>();
  private readonly open = new Map<string, number>();
  private readonly mostOpen = new Map<string, number>();
  private readonly done = new Map<string, number>();
  private server?: Server;

  constructor(private readonly host = '127.0.0.1') {}

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://${this.host}:${this.port}${path}`;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', () => this.connections++);
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, this.host, resolve);
    });
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.pending) res.destroy();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  /** The secret the create answer returned for the endpoint at `path`. */
  expect(path: string, secret: string): void {
    this.secrets.set(path, secret);
  }

  /** Answers for the next requests to `path`, in order; then 204. */
  script(path: string, ...answers: ReceiverAnswer[]): void {
    this.scripts.set(path, [...(this.scripts.get(path) ?? []), ...answers]);
  }

  of(path: string): ReceivedDelivery[] {
    return this.deliveries.filter((d) => d.path === path);
  }

  /** The most requests to `path` that were waiting for their answer at once. */
  mostInFlight(path: string): number {
    return this.mostOpen.get(path) ?? 0;
  }

  /** Requests to `path` answered so far. */
  answered(path: string): number {
    return this.done.get(path) ?? 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const opened = req.url ?? '/';
    const open = (this.open.get(opened) ?? 0) + 1;
    this.open.set(opened, open);
    this.mostOpen.set(opened, Math.max(open, this.mostInFlight(opened)));
    res.once('close', () => {
      this.open.set(opened, (this.open.get(opened) ?? 1) - 1);
      if (res.writableFinished) this.done.set(opened, this.answered(opened) + 1);
    });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    this.hits.push(path);
    const secret = this.secrets.get(path);
    if (secret) {
      try {
        const payload = new Webhook(secret).verify(raw, {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        }) as ReceivedDelivery['payload'];
        this.deliveries.push({
          path,
          id: String(req.headers['webhook-id']),
          timestamp: String(req.headers['webhook-timestamp']),
          payload,
          headers: req.headers,
        });
      } catch (error) {
        this.rejected.push({ path, reason: (error as Error).message });
      }
    }
    const answer = this.scripts.get(path)?.shift() ?? { status: 204 };
    const send = () => {
      this.pending.delete(res);
      if (res.destroyed) return;
      res.writeHead(answer.status ?? 204, answer.headers);
      res.end(answer.body);
    };
    if (answer.delayMs) {
      this.pending.add(res);
      setTimeout(send, answer.delayMs);
    } else send();
  }
}

import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** A real 64×48 PNG (the shared fixture sample.png), what the stand-in "draws". */
export const STAND_IN_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAEAAAAAwCAIAAAAuKetIAAAACXBIWXMAAAABAAAAAQBPJcTWAAABh0lEQVR4nO3WLzQEURTH8V+j0Wg0Go1Go9FoNBqNthqNRqPRaDQajUaj0Wi0L/vHzpnZd/c4O7Mzc9a9+87Z8Obdez9vZnafZATGqH/9fBLDWpG87ncELw8lbgwrrP7bAYIVMgHUV3QRYPeTGaBZKHtAI1EugFZDWkCUKC9AwpAKEEuUIyC2cR0DkrcyX0D06HYGCLxMuQPqbfxLQLByIQBsggkw+iwMYN2GHgXYfRYJCBp6EdCYKCWg1eCAsgGiibICEgYHOMABDnCAAxzgAAc4oDyA5nRpAcTDASUEqE3ZogG0RG16WEyKebEqtsWBOBM34kl86BM9o1t0jg5RBa2hBTSFRlBfdf2gGBezYllsij1xIq7Eg3irNvuK7tElOka7aAMtoRk0hgboF6NiWiyKdbEjjsSFuBMv4qu6/h09omt0ivbRFlpBc2gCDTnAAQ5wQMEAK2K/wcX9D0R1jfgTIJYoR0Bs41ICmulyAyRPAOkBtD1jZAsIHGEyAdRSq6sAY3/M+AZ0I5Jd3NcKtAAAAABJRU5ErkJggg==',
  'base64',
);

export interface AiCall {
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

/**
 * A local OpenAI-compatible provider: `POST /v1/chat/completions` answers `text`,
 * `POST /v1/images/generations` answers `image` as `b64_json`. `failWith` makes every call
 * answer that HTTP status. Records every call.
 */
export class AiStandIn {
  readonly calls: AiCall[] = [];
  text = 'Generated post text';
  image = STAND_IN_PNG;
  failWith: number | null = null;
  private server?: Server;

  /** The value for AI_API_BASE_URL. */
  get url(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}/v1`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    const path = req.url ?? '';
    this.calls.push({ path, authorization: req.headers.authorization, body });
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    if (this.failWith !== null) {
      send(this.failWith, { error: { message: 'scripted failure', type: 'server_error' } });
      return;
    }
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      send(200, {
        id: 'chatcmpl-standin',
        object: 'chat.completion',
        model: body.model,
        choices: [
          { index: 0, message: { role: 'assistant', content: this.text }, finish_reason: 'stop' },
        ],
      });
      return;
    }
    if (req.method === 'POST' && path === '/v1/images/generations') {
      send(200, { created: 1, data: [{ b64_json: this.image.toString('base64') }] });
      return;
    }
    send(404, { error: { message: 'not found' } });
  }
}

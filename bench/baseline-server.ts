/**
 * The floor of what this stack can do: a bare `node:http` + `pg` server answering
 * `GET /api/public/v1/projects` and `GET /api/public/v1/usage` with the work Herald does for them
 * (bench/floor-work.ts: the key lookup, the same named SQL, the same JSON), and nothing else: no
 * framework, no guards, no logging, no rate limits. Started by bench/read-api.ts; configured by
 * PORT, DATABASE_URL and APP_SECRET.
 */
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { authenticate, projects, usage } from './floor-work';

const port = Number(process.env.PORT ?? 3001);

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method === 'GET' && path === '/health/live') return send(res, 200, { status: 'ok' });
  const route =
    req.method !== 'GET'
      ? undefined
      : path === '/api/public/v1/projects'
        ? projects
        : path === '/api/public/v1/usage'
          ? usage
          : undefined;
  if (!route) return send(res, 404, { error: { code: 'not_found', message: 'Not found' } });
  const key = await authenticate(req.headers.authorization);
  if (!key) return send(res, 401, { error: { code: 'unauthorized', message: 'Invalid API key' } });
  send(res, 200, await route(key.user_id));
}

createServer((req, res) => {
  handle(req, res).catch(() =>
    send(res, 500, { error: { code: 'internal_error', message: 'Internal error' } }),
  );
}).listen(port, '127.0.0.1');

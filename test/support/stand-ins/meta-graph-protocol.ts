import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import { request } from 'undici';

/** The calls the stand-in answers, by the name a script or a recorded call uses. */
export type ThreadsRoute =
  | 'authorize'
  | 'token'
  | 'long_lived_token'
  | 'refresh_token'
  | 'me'
  | 'create_container'
  | 'container'
  | 'publish'
  | 'media'
  | 'publishing_limit'
  | 'recent_posts';

export interface RecordedThreadsCall {
  route: ThreadsRoute | 'unknown';
  method: string;
  path: string;
  /** Query and form parameters together; `access_token` among them. */
  params: Record<string, string>;
  status: number | null;
  /** When it arrived (epoch ms). */
  at?: number;
}

export interface ThreadsScript {
  status?: number;
  /** Meta's error object (`{message, type, code, error_subcode}`). */
  error?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Serve the call, then close the connection unanswered (the answer lost). */
  afterServing?: 'drop';
}

export interface Profile {
  id: string;
  username: string;
}

export interface Container {
  id: string;
  userId: string;
  params: Record<string, string>;
  status: 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';
  errorMessage?: string;
  /** Status reads still answered IN_PROGRESS. */
  readsLeft: number;
  /** And not before this moment (epoch ms). */
  readyAt?: number;
  /** When it began to process, if it had to (epoch ms). */
  processingSince?: number;
}

export interface PublishedPost {
  id: string;
  userId: string;
  container: Container;
  permalink: string;
  at: number;
}

const GRAPH = '/v1.0';

export const oauthError = (message: string, code: number, extra: Record<string, unknown> = {}) => ({
  message,
  type: 'OAuthException',
  code,
  ...extra,
  fbtrace_id: `A${randomBytes(8).toString('hex')}`,
});

export function invalidToken() {
  return oauthError(
    'Error validating access token: Session has expired or the user has changed the password.',
    190,
    { error_subcode: 460 },
  );
}

export function routeOf(
  method: string,
  path: string,
  p: Record<string, string>,
  known: { containers: Map<string, unknown>; posts: { id: string }[] },
): ThreadsRoute | 'unknown' {
  if (path === '/oauth/authorize') return 'authorize';
  if (path === '/oauth/access_token' && method === 'POST') return 'token';
  if (path === '/access_token' && p.grant_type === 'th_exchange_token') return 'long_lived_token';
  if (path === '/refresh_access_token' && p.grant_type === 'th_refresh_token')
    return 'refresh_token';
  if (!path.startsWith(`${GRAPH}/`)) return 'unknown';
  const [, , node, edge] = path.split('/');
  if (node === 'me' && !edge && method === 'GET') return 'me';
  if (edge === 'threads' && method === 'POST') return 'create_container';
  if (edge === 'threads' && method === 'GET') return 'recent_posts';
  if (edge === 'threads_publish' && method === 'POST') return 'publish';
  if (edge === 'threads_publishing_limit') return 'publishing_limit';
  if (!edge && known.containers.has(node)) return 'container';
  if (!edge && known.posts.some((post) => post.id === node)) return 'media';
  return 'unknown';
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** As Meta's fetcher does: GET the URL; its status (0 when it could not be reached) and media type. */
export async function downloadMedia(url: string): Promise<{ status: number; type: string }> {
  try {
    const res = await request(url, { method: 'GET', headersTimeout: 5_000, bodyTimeout: 5_000 });
    await res.body.arrayBuffer();
    const type = String(res.headers['content-type'] ?? '')
      .split(';')[0]
      .trim();
    return { status: res.statusCode, type };
  } catch {
    return { status: 0, type: '' };
  }
}

/** A container made processing for a random time in `range` (the benchmark's 1 to 5 s). */
export function processingFor(range: { minMs: number; maxMs: number }) {
  const now = Date.now();
  return {
    status: 'IN_PROGRESS' as const,
    readsLeft: 0,
    readyAt: now + range.minMs + Math.random() * (range.maxMs - range.minMs),
    processingSince: now,
  };
}

import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request } from 'express';
import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { duplexPair } from 'node:stream';
import { PUBLIC_API_PREFIX } from '../../access/decorators';
import type { ToolRoute } from './mcp-tools';

export interface RouteInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

export interface RouteAnswer {
  status: number;
  /** The rate-limit window of the call. */
  headers: Record<string, string>;
  body: unknown;
}

const PASSED_ON = /^(x-ratelimit-|retry-after$)/;

/** Over an in-process stream pair: every guard, pipe and filter runs as over HTTP. */
@Injectable()
export class RouteCaller {
  constructor(private readonly adapter: HttpAdapterHost) {}

  call(route: ToolRoute, caller: Request, input: RouteInput): Promise<RouteAnswer> {
    const [method, template] = route.split(' ');
    const path = template.replace(/\{(\w+)\}/g, (_match, name: string) =>
      encodeURIComponent(input.params[name] ?? ''),
    );
    const payload = input.body === undefined ? undefined : JSON.stringify(input.body);
    const headers: Record<string, string> = { accept: 'application/json', host: 'herald' };
    for (const name of ['authorization', 'x-forwarded-for', 'host']) {
      const value = caller.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    if (payload !== undefined) headers['content-type'] = 'application/json';

    const [client, server] = duplexPair();
    // The server side stands for the caller's own connection, as the client's address goes.
    Object.defineProperty(server, 'remoteAddress', { value: caller.socket.remoteAddress });
    (this.adapter.httpAdapter.getHttpServer() as Server).emit('connection', server);
    return new Promise<RouteAnswer>((resolve, reject) => {
      const outgoing = httpRequest(
        {
          method,
          path: `/${PUBLIC_API_PREFIX}${path}${queryString(input.query)}`,
          headers,
          createConnection: () => client,
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('error', reject);
          answer.on('end', () => {
            client.destroy();
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: answer.statusCode ?? 500,
              headers: passedOn(answer.headers),
              body: text === '' ? undefined : (JSON.parse(text) as unknown),
            });
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  }
}

function passedOn(headers: IncomingHttpHeaders): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (PASSED_ON.test(name) && typeof value === 'string') passed[name] = value;
  return passed;
}

/** Text as it is, anything else as JSON text. */
function queryString(query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    search.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

import { Logger } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import express from 'express';
import { once } from 'node:events';
import { Agent, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { InFlightRequests } from './in-flight-requests';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * Stopping waits for every handler that started, even one whose client hung up, and refuses
 * what arrives afterwards before it runs. A real HTTP server with the middleware in front of a
 * handler that answers when the test says so.
 */
describe('InFlightRequests: stopping finishes what started', () => {
  let server: Server;
  let port: number;
  let requests: InFlightRequests;
  let agent: Agent;
  const handlersRun: string[] = [];
  const release = new Map<string, () => void>();

  beforeAll(() => Logger.overrideLogger(false));

  beforeEach(async () => {
    handlersRun.length = 0;
    release.clear();
    const app = express();
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
    requests = new InFlightRequests({
      httpAdapter: { getHttpServer: () => server, getInstance: () => app },
    } as unknown as HttpAdapterHost);
    app.use(requests.middleware());
    app.get('/work/:name', (req, res) => {
      const name = String(req.params.name);
      handlersRun.push(name);
      release.set(name, () => res.json({ done: name }));
    });
    agent = new Agent({ keepAlive: true });
  });

  afterEach(() => {
    agent.destroy();
    server.closeAllConnections();
    server.close();
  });

  function get(path: string, signal?: AbortSignal): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, agent, signal }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  const until = async (condition: () => boolean) => {
    while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  it('waits for a handler whose client hung up, and answers the others with Connection: close', async () => {
    const hangUp = new AbortController();
    const abandoned = get('/work/abandoned', hangUp.signal).catch((error: Error) => error.name);
    const kept = get('/work/kept', undefined);
    await until(() => handlersRun.length === 2);
    hangUp.abort();
    expect(await abandoned).toBe('AbortError');
    expect(requests.count).toBe(2);

    let stopped = false;
    const stopping = requests.stop().then(() => (stopped = true));
    release.get('kept')!();
    const answer = await kept;
    expect(answer).toMatchObject({ status: 200, headers: { connection: 'close' } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect({ stopped, count: requests.count }).toEqual({ stopped: false, count: 1 });

    release.get('abandoned')!();
    await stopping;
    expect(requests.count).toBe(0);
  });

  it('refuses a request that arrives once stopping began, before its handler runs', async () => {
    const first = get('/work/first');
    await until(() => handlersRun.length === 1);
    // A connection opened before the stop, whose request is under way but not complete: stopping
    // does not close it as idle, and the request arrives whole only afterwards.
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    socket.write('GET /work/late HTTP/1.1\r\nHost: herald\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));

    const stopping = requests.stop();
    expect(server.listening).toBe(false);
    socket.write('\r\n');
    await once(socket, 'close');
    const [head, body] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 503 /);
    expect(head).toMatch(/\r\nRetry-After: 1\r\n/i);
    expect(head).toMatch(/\r\nConnection: close\r\n/i);
    expect(JSON.parse(body)).toEqual({
      error: {
        code: 'service_unavailable',
        message: 'Herald is stopping and did not run this request; retry it',
      },
    });
    expect(handlersRun).toEqual(['first']);

    release.get('first')!();
    expect((await first).status).toBe(200);
    await stopping;
    await expect(get('/work/after')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('keeps an idle keep-alive connection open at the stop: a request sent on it is answered, then the connection closes', async () => {
    // Closing idle connections at the stop raced a client that sent on one at that moment: its
    // request was cut (ECONNRESET) instead of answered.
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    let closed = false;
    socket.on('close', () => (closed = true));
    socket.write('GET /work/earlier HTTP/1.1\r\nHost: herald\r\n\r\n');
    await until(() => handlersRun.length === 1);
    release.get('earlier')!();
    await until(() => raw.includes('"done":"earlier"'));
    expect(raw).toMatch(/\r\nConnection: keep-alive\r\n/i);
    const busy = get('/work/busy');
    await until(() => handlersRun.length === 2);

    raw = '';
    const stopping = requests.stop();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    socket.write('GET /work/late HTTP/1.1\r\nHost: herald\r\n\r\n');
    await once(socket, 'close');
    expect(raw).toMatch(/^HTTP\/1\.1 503 /);
    expect(raw).toMatch(/\r\nConnection: close\r\n/i);
    expect(handlersRun).toEqual(['earlier', 'busy']);

    release.get('busy')!();
    expect(await busy).toMatchObject({ status: 200, headers: { connection: 'close' } });
    await stopping;
  });
});

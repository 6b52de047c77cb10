import type { Response } from 'supertest';
import { Factory, SignedInUser, TestProject } from './support/factories';
import { TcpProxy } from './support/tcp-proxy';
import { startTestApp, TestApp } from './support/test-app';

const PUBLIC = '/api/public/v1';
const UNAVAILABLE = {
  error: { code: 'service_unavailable', message: expect.any(String) },
};

function expectUnavailable(res: Response): void {
  expect([res.status, res.body]).toEqual([503, UNAVAILABLE]);
  expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
}

/** Retries `send` until it answers `status` (the service heals by itself, without a restart). */
async function eventually(send: () => Promise<Response>, status: number): Promise<Response> {
  let last: Response | undefined;
  for (let attempt = 0; attempt < 50; attempt++) {
    last = await send();
    if (last.status === status) return last;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`still ${last?.status} ${JSON.stringify(last?.body)}`);
}

/**
 * Issue 9 item 5, D18: PostgreSQL away (refusing or hanging) is a 503 with Retry-After within
 * 10 s, and the service heals by itself. (Redis through the proxy: the app's Bull queues do not
 * close while a proxied Redis hangs, so that case is not here yet.)
 */
describe('Outages (D18)', () => {
  describe('PostgreSQL away', () => {
    let proxy: TcpProxy;
    let t: TestApp;
    let owner: SignedInUser;
    let project: TestProject;
    let key: string;

    beforeAll(async () => {
      proxy = await new TcpProxy('127.0.0.1', 5432).start();
      t = await startTestApp({}, { databasePort: proxy.port });
      ({ owner, project, key } = await new Factory(t).owner());
    });

    afterAll(async () => {
      // Drop every proxied connection first: a socket held open by the blackhole would keep the
      // app's pool (and the proxy) from closing.
      await proxy?.stop();
      await t?.close();
    });

    const requests: Array<[string, (t: TestApp) => Promise<Response>]> = [
      ['a session route', (t) => t.http.get('/api/projects').set('Authorization', owner.auth)],
      [
        'a public route',
        (t) =>
          t.http
            .get(`${PUBLIC}/projects/${project.id}/posts`)
            .set('Authorization', `Bearer ${key}`),
      ],
      [
        'a write',
        (t) =>
          t.http
            .post(`${PUBLIC}/projects/${project.id}/posts`)
            .set('Authorization', `Bearer ${key}`)
            .send({ text: 'during the outage' }),
      ],
      [
        'login',
        (t) =>
          t.http.post('/api/auth/login').send({ email: owner.email, password: 'x'.repeat(12) }),
      ],
    ];

    it.each(['refuse', 'blackhole'] as const)(
      'answers 503 with Retry-After while the database %ss connections, then heals',
      async (mode) => {
        await t.http.get('/api/projects').set('Authorization', owner.auth).expect(200);
        proxy.cut(mode);
        for (const [, send] of requests) expectUnavailable(await send(t));
        const ready = await t.http.get('/health/ready');
        expect(ready.status).toBe(503);
        proxy.restore();
        await eventually(() => requests[0][1](t), 200);
        await eventually(() => requests[1][1](t), 200);
        const { rows } = await t.db.query(
          "SELECT count(*)::int AS n FROM posts WHERE text = 'during the outage'",
        );
        expect(rows[0].n).toBe(0);
      },
    );
  });
});

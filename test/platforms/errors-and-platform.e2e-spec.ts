import type { Express } from 'express';
import { IncomingMessage, type Server, ServerResponse } from 'node:http';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/infrastructure/database/data-source';
import { InFlightRequests } from '../../src/infrastructure/shutdown/in-flight-requests';
import { Factory, SignedInUser } from '../support/factories/factories';
import { startTestApp, TestApp } from '../support/test-app';

describe('Errors, OpenAPI, health and schema', () => {
  let t: TestApp;
  let make: Factory;
  let admin: SignedInUser;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    make = new Factory(t);
    admin = await make.admin();
    key = await make.apiKey(admin);
  });

  afterAll(() => t?.close());

  describe('one error shape everywhere', () => {
    it('answers an unknown route with 404 not_found', async () => {
      for (const path of ['/nope', '/api/public/v1/nope', '/api/public/v2/projects']) {
        const res = await t.http.get(path).expect(404);
        expect(res.body).toEqual({ error: { code: 'not_found', message: 'Route not found' } });
      }
    });

    it('answers malformed JSON with 400 invalid_json, before anything else runs', async () => {
      const res = await t.http
        .post('/api/auth/login')
        .set('Content-Type', 'application/json')
        .send('{"email": "a@b.c", ')
        .expect(400);
      expect(res.body).toEqual({
        error: { code: 'invalid_json', message: 'Request body is not valid JSON' },
      });
    });

    it('answers a JSON body over 1 MB with 413 payload_too_large', async () => {
      const res = await t.http
        .post('/api/projects')
        .set('Authorization', admin.auth)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), timezone: 'UTC' }))
        .expect(413);
      expect(res.body.error.code).toBe('payload_too_large');
    });

    it('names every bad field in a validation failure, with details', async () => {
      const res = await t.http
        .post('/api/projects')
        .set('Authorization', admin.auth)
        .send({ name: 7, timezone: 'Nowhere/Land', extra: 1 })
        .expect(400);
      expect(res.body.error.code).toBe('validation_failed');
      const fields = res.body.error.details.map((d: { field: string }) => d.field);
      expect(fields).toEqual(expect.arrayContaining(['name', 'timezone', 'extra']));
      for (const field of ['name', 'timezone', 'extra'])
        expect(res.body.error.message).toContain(field);
    });

    it('never shows a stack trace or SQL', async () => {
      const res = await t.http
        .post('/api/projects')
        .set('Authorization', admin.auth)
        .send([])
        .expect(400);
      expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts|SELECT|INSERT|node_modules/);
    });

    it('echoes a request id', async () => {
      const res = await t.http
        .get('/health/live')
        .set('X-Request-Id', 'test-request-0001')
        .expect(200);
      expect(res.headers['x-request-id']).toBe('test-request-0001');
      const fresh = await t.http.get('/health/live').expect(200);
      expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('OpenAPI', () => {
    it('serves the public document with every public route and the bearer scheme', async () => {
      const res = await t.http.get('/api/public/v1/openapi.json').expect(200);
      const paths = Object.keys(res.body.paths);
      expect(paths).toEqual(
        expect.arrayContaining([
          '/api/public/v1/projects',
          '/api/public/v1/projects/{projectId}/channels',
          '/api/public/v1/usage',
        ]),
      );
      expect(paths.every((p) => p.startsWith('/api/public/v1/'))).toBe(true);
      expect(res.body.components.securitySchemes['api-key']).toMatchObject({
        type: 'http',
        scheme: 'bearer',
      });
      const responses = res.body.paths['/api/public/v1/projects'].get.responses;
      expect(responses['401']).toBeDefined();
      // The rate-limit headers are part of the contract, on every answer after authentication.
      expect(Object.keys(responses['200'].headers)).toEqual([
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
      ]);
      expect(Object.keys(responses['429'].headers)).toContain('Retry-After');
      expect(responses['401'].headers).toBeUndefined();
    });

    it('serves the full document and the UI', async () => {
      const full = await t.http.get('/api/openapi.json').expect(200);
      expect(Object.keys(full.body.paths)).toEqual(
        expect.arrayContaining(['/api/projects', '/api/accounts']),
      );
      const ui = await t.http.get('/api/docs').redirects(1).expect(200);
      expect(ui.text).toContain('swagger');
    });
  });

  describe('health', () => {
    it('is live and ready with PostgreSQL and Redis up', async () => {
      await t.http.get('/health/live').expect(200, { status: 'ok' });
      const ready = await t.http.get('/health/ready').expect(200);
      expect(ready.body.info).toMatchObject({
        database: { status: 'up' },
        redis: { status: 'up' },
      });
    });

    it('is live but not ready while Redis is unreachable', async () => {
      const degraded = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:1', APP_ROLE: 'api' });
      try {
        await degraded.http.get('/health/live').expect(200);
        const ready = await degraded.http.get('/health/ready').expect(503);
        expect(ready.body.error.code).toBe('service_unavailable');
      } finally {
        await degraded.close();
      }
    });
  });

  describe('schema: migrations only', () => {
    it('has no drift between the entities and the migrations', async () => {
      const source = new DataSource(buildDataSourceOptions(t.config.databaseUrl));
      await source.initialize();
      try {
        const sql = await source.driver.createSchemaBuilder().log();
        expect(sql.upQueries.map((q) => q.query)).toEqual([]);
      } finally {
        await source.destroy();
      }
    });

    it('keeps no index whose columns lead another index of its table', async () => {
      // Such an index (of the same kind, with the same operator classes) answers no lookup the
      // longer one does not, while every insert, and every update that is not HOT, writes both.
      const { rows: redundant } = await t.db.query(
        `SELECT a.indexrelid::regclass::text AS "index", b.indexrelid::regclass::text AS "servedBy"
           FROM pg_index a
           JOIN pg_index b ON b.indrelid = a.indrelid AND b.indexrelid <> a.indexrelid
           JOIN pg_class t ON t.oid = a.indrelid
           JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public'
           JOIN pg_class ai ON ai.oid = a.indexrelid
           JOIN pg_class bi ON bi.oid = b.indexrelid AND bi.relam = ai.relam
          WHERE NOT a.indisunique
            AND a.indpred IS NULL AND b.indpred IS NULL
            AND a.indexprs IS NULL AND b.indexprs IS NULL
            AND (b.indkey::text || ' ') LIKE (a.indkey::text || ' %')
            AND (b.indclass::text || ' ') LIKE (a.indclass::text || ' %')`,
      );
      expect(redundant).toEqual([]);
    });

    it('has an index leading with the columns of every foreign key', async () => {
      // Deleting a referenced row (an account, a channel, a user) makes PostgreSQL find the rows
      // that refer to it, to cascade, set null or refuse: without such an index, by reading every
      // tenant's rows of the table, once per deleted row.
      const { rows: unindexed } = await t.db.query(
        `SELECT c.conrelid::regclass::text AS "table", c.conname AS "foreignKey",
                c.confdeltype AS "onDelete"
           FROM pg_constraint c
           JOIN pg_namespace n ON n.oid = c.connamespace AND n.nspname = 'public'
          WHERE c.contype = 'f'
            AND NOT EXISTS (
                  SELECT 1 FROM pg_index i
                   WHERE i.indrelid = c.conrelid AND i.indisvalid AND i.indpred IS NULL
                     AND i.indnkeyatts >= cardinality(c.conkey)
                     AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
                     AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey)
          ORDER BY 1, 2`,
      );
      expect(unindexed).toEqual([]);
    });
  });

  describe('public API with a valid key', () => {
    it('answers JSON lists of the shape {items, count}', async () => {
      const res = await t.http
        .get('/api/public/v1/projects')
        .set('Authorization', `Bearer ${key}`)
        .expect(200);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual({ items: [], count: 0 });
    });
  });

  describe('the HTTP server', () => {
    it('builds each request and answer on Express’s prototypes, so Express never changes them', async () => {
      const server = t.app.getHttpServer() as Server;
      const express = t.app.getHttpAdapter().getInstance() as Express;
      const built: { request?: object; response?: object } = {};
      // Runs before Express's own listener: what the server built, before Express touches it.
      const probe = (req: IncomingMessage, res: ServerResponse) => {
        built.request = Object.getPrototypeOf(req) as object;
        built.response = Object.getPrototypeOf(res) as object;
      };
      server.prependListener('request', probe);
      try {
        await t.http.get('/health/live').expect(200);
      } finally {
        server.removeListener('request', probe);
      }
      expect(built.request).toBe(express.request);
      expect(built.response).toBe(express.response);
      // Still Node's own kinds, with Express's methods.
      expect(express.request).toBeInstanceOf(IncomingMessage);
      expect(express.response).toBeInstanceOf(ServerResponse);
    });

    it('gives no answer an end() of its own: the count of requests in flight watches the prototype’s', async () => {
      const server = t.app.getHttpServer() as Server;
      const answers: ServerResponse[] = [];
      const probe = (_req: IncomingMessage, res: ServerResponse) => answers.push(res);
      server.prependListener('request', probe);
      try {
        await t.http.get('/health/live').expect(200);
        await t.http.get('/api/public/v1/projects').expect(401);
      } finally {
        server.removeListener('request', probe);
      }
      expect(answers).toHaveLength(2);
      for (const res of answers) expect(Object.hasOwn(res, 'end')).toBe(false);
      // And each one, once ended, left the count.
      expect(t.app.get(InFlightRequests).count).toBe(0);
    });
  });
});

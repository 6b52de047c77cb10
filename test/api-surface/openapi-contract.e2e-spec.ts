import type { Response } from 'supertest';
import { OpenApiContract } from '../support/contract';
import { registeredRoutes } from '../support/routes';
import { startTestApp, TestApp } from '../support/test-app';

interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  servers?: { url: string }[];
  tags?: { name: string }[];
}

interface Operation {
  summary?: string;
  description?: string;
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; schema?: { type?: string } }[];
  responses: Record<string, unknown>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(document: Document): Array<[string, string, Operation]> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m): [string, string, Operation] => [path, m, item[m]]),
  );
}

/** The served documents are the contract; test/support/contract.ts enforces it. */
describe('OpenAPI documents', () => {
  let t: TestApp;
  let full: Document;
  let publicOnly: Document;

  beforeAll(async () => {
    t = await startTestApp();
    full = (await t.http.get('/api/openapi.json').expect(200)).body;
    publicOnly = (await t.http.get('/api/public/v1/openapi.json').expect(200)).body;
  });

  afterAll(() => t?.close());

  it('documents every registered route but the ones excluded on purpose (metrics, media files)', () => {
    const documented = new Set(
      operations(full).map(([path, method]) => `${method.toUpperCase()} ${path}`),
    );
    const missing = registeredRoutes(t.app)
      .filter(({ targets: [handler, controller] }) => {
        const excluded =
          Reflect.getMetadata('swagger/apiExcludeController', controller) ??
          Reflect.getMetadata('swagger/apiExcludeEndpoint', handler);
        return !(Array.isArray(excluded) ? excluded[0] : excluded?.disable);
      })
      .map(({ route }) => route.replace(/:(\w+)/g, '{$1}').replace(/\*(\w+)/, '{$1}'))
      .filter((route) => !documented.has(route));
    expect(missing).toEqual([]);
  });

  it('keeps the public document to the public API, its schemas and its key scheme', () => {
    const paths = Object.keys(publicOnly.paths);
    expect(paths.length).toBeGreaterThan(3);
    expect(paths.filter((p) => !p.startsWith('/api/public/v1/'))).toEqual([]);
    expect(Object.keys(publicOnly.components.securitySchemes)).toEqual(['api-key']);
    expect(publicOnly.tags?.map((tag) => tag.name)).toEqual(['Public API']);
    const schemas = Object.keys(publicOnly.components.schemas);
    expect(schemas).toEqual(expect.arrayContaining(['ErrorResponseDto']));
    expect(schemas.length).toBeLessThan(Object.keys(full.components.schemas).length);
    const text = JSON.stringify(publicOnly.paths);
    for (const name of schemas) expect(JSON.stringify(publicOnly).includes(`/${name}"`)).toBe(true);
    expect(text).not.toContain('"session"');
  });

  it('names a server and gives every operation a security rule', () => {
    for (const document of [full, publicOnly]) {
      expect(document.servers?.[0]?.url).toBe(t.config.publicBaseUrl);
      for (const [path, method, operation] of operations(document)) {
        expect([path, method, Array.isArray(operation.security)]).toEqual([path, method, true]);
      }
    }
    const open = operations(full).filter(([, , op]) => op.security?.length === 0);
    expect(open.map(([path]) => path)).toEqual(
      expect.arrayContaining(['/api/auth/register', '/api/auth/login', '/health/live']),
    );
  });

  it('declares every path parameter, ids as integers', () => {
    for (const [path, method, operation] of operations(full)) {
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        const parameter = operation.parameters?.find((p) => p.in === 'path' && p.name === name);
        expect([path, method, name, parameter?.required]).toEqual([path, method, name, true]);
        if (/id$/i.test(name)) expect(parameter?.schema?.type).toBe('integer');
      }
    }
  });

  it('documents the outage and input answers of every operation', () => {
    for (const [path, method, operation] of operations(full)) {
      for (const status of ['400', '500', '503'])
        expect([path, method, status, status in operation.responses]).toEqual([
          path,
          method,
          status,
          true,
        ]);
    }
  });

  it('says nothing about decision numbers or spec files in what users read', () => {
    const texts: string[] = [];
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (['summary', 'description', 'title'].includes(key) && typeof value === 'string')
          texts.push(value);
        else visit(value);
      }
    };
    visit(full);
    expect(
      texts.filter((text) => /\bD\d{1,2}\b|SERVICE\.md|DECISIONS|issue \d/.test(text)),
    ).toEqual([]);
  });

  describe('the contract check itself', () => {
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      ({
        status,
        body,
        text: JSON.stringify(body),
        headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
      }) as unknown as Response;

    it('passes an answer that keeps the document', () => {
      const contract = new OpenApiContract(full as never);
      const body = { error: { code: 'unauthorized', message: 'Missing or invalid credentials' } };
      expect(contract.check('get', '/api/public/v1/projects', answer(401, body))).toBeNull();
    });

    it('fails an undocumented status', () => {
      const contract = new OpenApiContract(full as never);
      expect(contract.check('get', '/api/public/v1/projects', answer(418, {}))).toMatch(
        /status not documented/,
      );
    });

    it('fails a body off its schema', () => {
      const contract = new OpenApiContract(full as never);
      expect(
        contract.check('get', '/api/public/v1/projects', answer(401, { error: 'nope' })),
      ).toMatch(/body off its schema/);
    });

    it('fails a missing required header', () => {
      const contract = new OpenApiContract(full as never);
      const body = { error: { code: 'service_unavailable', message: 'Try again later' } };
      expect(contract.check('get', '/api/public/v1/projects', answer(503, body))).toMatch(
        /header Retry-After missing/,
      );
    });

    it('documents a nullable reference so that null validates (targets[].error)', () => {
      const schemas = full.components.schemas as Record<
        string,
        { properties?: Record<string, unknown> }
      >;
      const error = schemas.PostTargetStateDto?.properties?.error as { oneOf?: unknown[] };
      expect(error.oneOf).toEqual([
        { $ref: '#/components/schemas/TargetErrorDto' },
        { type: 'object', nullable: true, enum: [null] },
      ]);
    });
  });
});

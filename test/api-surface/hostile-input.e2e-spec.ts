import { Reflector } from '@nestjs/core';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { Test } from 'supertest';
import {
  AUTH_KIND,
  type AuthKind,
  PermissionMetadata,
  type PermissionRequirement,
} from '../../src/access/decorators';
import { Factory, SignedInUser, TestProject } from '../support/factories/factories';
import { type Answer, MCP_PATH, restAnswerOf, sendToolCall } from '../support/mcp';
import { registeredRoutes } from '../support/routes';
import { addMember } from '../support/factories/team';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { TestApp } from '../support/test-app';

/**
 * Hostile input gets a clear 4xx at the right step of the order of checks, on every route. The
 * route lists come from the running app (like test/api-surface/routes.e2e-spec.ts), so a new route
 * is covered without touching this file; a new path parameter fails here until it gets a row in
 * ID_PARAMS.
 */

const PUBLIC = '/api/public/v1';
const BODY_METHODS = ['POST', 'PUT', 'PATCH'];

interface WalkedRoute {
  method: string;
  path: string;
  name: string;
  kind: AuthKind;
  /** The project comes from the JSON body (app routes without a path or query project). */
  permission?: PermissionRequirement;
}

function walk(t: TestApp): WalkedRoute[] {
  const reflector = t.app.get(Reflector);
  return registeredRoutes(t.app).map(({ route, handlerName, targets }) => {
    const [method, path] = route.split(' ');
    return {
      method,
      path,
      name: `${route} (${handlerName})`,
      kind: reflector.getAllAndOverride<AuthKind>(AUTH_KIND, targets),
      permission: reflector.getAllAndOverride(PermissionMetadata, targets),
    };
  });
}

function send(t: TestApp, method: string, url: string): Test {
  const agent = t.http as unknown as Record<string, (url: string) => Test>;
  return agent[method.toLowerCase()](url);
}

/** Path parameters of a route, e.g. `['projectId', 'postId']`; a wildcard (`*path`) is not one. */
/** A path parameter that names a platform, not a row: the OAuth callback's. */
const PLATFORM_PARAM = 'platform';

function idParams(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((m) => m[1]).filter((p) => p !== PLATFORM_PARAM);
}

/** Odd spellings of a real id: each must be the resource's 404, never that row. */
function oddSpellings(id: number): string[] {
  return [
    `${id}.0`,
    `%20${id}`,
    `${id}%20`,
    `+${id}`,
    `0${id}`,
    `00${id}`,
    `-${id}`,
    `${id}e0`,
    `0x${id.toString(16)}`,
    `${id}abc`,
    `${id}%00`,
    `${id + 2 ** 32}`,
    '0',
    '2147483648',
    '99999999999',
    '%EF%BC%91', // fullwidth digit one
  ];
}

/**
 * Raw JSON values for every documented body field: numbers past the database's integer range and
 * past a double, wrong types, text PostgreSQL cannot store, long strings and arrays. Each must get
 * an answer of its own (4xx, or 2xx when the value happens to be valid), never a 5xx.
 */
const HOSTILE_VALUES = [
  '2147483648',
  '-2147483649',
  '9007199254740993',
  '1e400',
  '1.5',
  '0',
  '-1',
  'true',
  'null',
  '"abc"',
  '""',
  '"a\\u0000b"',
  '"\\ud800"',
  JSON.stringify('x'.repeat(70_000)),
  '"9999-12-31T23:59:59Z"',
  '"0000-01-01T00:00:00Z"',
  '[]',
  '{}',
  '[2147483648]',
  '[{}]',
  '["a"]',
  JSON.stringify(Array.from({ length: 5_000 }, () => 1)),
  '[{"channel_ref":"telegram:2147483648:1"}]',
  '[{"channel_ref":"telegram:1:1","id":2147483648,"user_id":2147483648}]',
];

/** Query values past the integer range, not numbers, not UTF-8, repeated or nested (qs). */
const HOSTILE_QUERY_VALUES = [
  '2147483648',
  '-1',
  '0',
  '1e400',
  '1.5',
  '%ED%A0%80',
  '%FF',
  'a'.repeat(5_000),
  '9999-12-31T23:59:59Z',
  'x&limit[]=1&limit[]=2',
  'x&cursor[a]=1&status[b]=2',
];

interface OpenApiBody {
  paths: Record<
    string,
    Record<
      string,
      {
        requestBody?: { required?: boolean; content: Record<string, { schema?: SchemaBody }> };
        parameters?: { in: string; name: string }[];
      }
    >
  >;
  components: { schemas: Record<string, SchemaBody> };
}

interface SchemaBody {
  $ref?: string;
  properties?: Record<string, unknown>;
  required?: string[];
}

/** The operation the document gives for a route (`/posts/:id` is documented as `/posts/{id}`). */
function documentedOperation(document: OpenApiBody, route: WalkedRoute) {
  return document.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];
}

function resolveSchema(document: OpenApiBody, schema?: SchemaBody): SchemaBody | undefined {
  return schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()!] : schema;
}

/** Webhook receivers here refuse connections at once (port 9), so test events end quickly. */
const WEBHOOK_RECEIVER_ENV = { MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.9/32' };

/** An endpoint of the project, created on the application API (no rate limit spent). */
async function newWebhook(t: TestApp, owner: SignedInUser, project: TestProject): Promise<number> {
  const res = await t.http
    .post(`/api/projects/${project.id}/webhooks`)
    .set('Authorization', owner.auth)
    .send({ url: 'http://127.0.0.9:9/hook', events: ['post.published'] })
    .expect(201);
  return (res.body as { id: number }).id;
}

describe('Hostile input', () => {
  describe('on every route', () => {
    let w: TelegramWorld;
    let t: TestApp;
    let make: Factory;
    let owner: SignedInUser;
    let project: TestProject;
    let key: string;
    let routes: WalkedRoute[];
    /** The app's own OpenAPI document: which query parameters and body fields each route takes. */
    let document: OpenApiBody;
    /** The real id each path parameter takes, by route prefix and parameter name. */
    let realId: (path: string, param: string) => number;

    beforeAll(async () => {
      w = await startWithTelegram({
        RATE_LIMIT_CREATE_POST: '100000',
        RATE_LIMIT_PUBLISH: '100000',
        RATE_LIMIT_UPLOAD: '100000',
        RATE_LIMIT_OTHER: '100000',
        ...WEBHOOK_RECEIVER_ENV,
      });
      ({ t, make } = w);
      ({ owner, project, key } = await make.owner());
      document = (await t.http.get('/api/openapi.json').expect(200)).body as OpenApiBody;
      const account = await make.telegramAccount(owner, project);
      const post = await t.http
        .post(`${PUBLIC}/projects/${project.id}/posts`)
        .set('Authorization', `Bearer ${key}`)
        .send({ text: 'a draft' })
        .expect(201);
      const template = await t.http
        .post('/api/posts/templates')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, name: 'Template', text: 'Hello' })
        .expect(201);
      const member = await make.user('Member');
      await addMember(t, owner, project, member, 'editor');
      const keys = await t.http.get('/api/api-keys').set('Authorization', owner.auth).expect(200);
      const keyId = (keys.body as { items: { id: number }[] }).items[0].id;
      const webhookId = await newWebhook(t, owner, project);
      const mediaId = await make.media(project, key, 'sample.png');
      const ids: Array<[RegExp, string, number]> = [
        [/./, 'projectId', project.id],
        [/^\/api\/projects\/:id/, 'id', project.id],
        [/^\/api\/projects\/:id\/members\/:userId/, 'userId', member.id],
        [/^\/api\/posts\/templates\/:id/, 'id', (template.body as { id: number }).id],
        [/^\/api\/posts\/:id/, 'id', (post.body as { id: number }).id],
        [/\/posts\/:postId/, 'postId', (post.body as { id: number }).id],
        [/^\/api\/api-keys\/:id/, 'id', keyId],
        [/^\/api\/accounts\/:id/, 'id', account.id],
        [/\/webhooks\/:webhookId/, 'webhookId', webhookId],
        [/\/media\/:mediaId/, 'mediaId', mediaId],
      ];
      realId = (path, param) => {
        const row = ids.find(([prefix, name]) => name === param && prefix.test(path));
        if (!row) throw new Error(`No real id for :${param} of ${path}: add a row to the table`);
        return row[2];
      };
      routes = walk(t);
    });

    afterAll(() => w?.close());

    function authorize(request: Test, route: WalkedRoute): Test {
      if (route.kind === 'api_key') return request.set('Authorization', `Bearer ${key}`);
      if (route.kind === 'session') return request.set('Authorization', owner.auth);
      return request;
    }

    /** The route's URL with every path parameter at its real id, `override` replacing one. */
    function urlOf(route: WalkedRoute, override?: { param: string; value: string }): string {
      return route.path
        .replace(/\*\w+/, 'projects/x.jpg')
        .replace(/:(\w+)/g, (_match, param: string) =>
          param === override?.param
            ? override.value
            : param === PLATFORM_PARAM
              ? 'mastodon'
              : String(realId(route.path, param)),
        );
    }

    /**
     * A raw JSON body to the route. The MCP endpoint takes it as the arguments of the dry run of
     * a create (the sweeps' bodies carry project_id, as the create tools do), and its tool error
     * is read as the REST answer it stands for.
     */
    async function sendJson(route: WalkedRoute, raw: string): Promise<Answer> {
      const request = authorize(send(t, route.method, urlOf(route)), route);
      if (route.path === MCP_PATH)
        return restAnswerOf(await sendToolCall(request, 'validate_post', raw));
      return request.set('Content-Type', 'application/json').send(raw);
    }

    /** Sends each raw JSON body to each route; what did not refuse it naming the field. */
    async function fieldRefusalsMissed(
      bodyRoutes: WalkedRoute[],
      cases: [raw: string, field: string][],
    ): Promise<string[]> {
      const wrong: string[] = [];
      for (const route of bodyRoutes)
        for (const [raw, field] of cases) {
          const res = await sendJson(route, raw);
          if (!isFieldRefusal(res, field)) wrong.push(`${route.name} ${field} → ${shown(res)}`);
        }
      return wrong;
    }

    it('finds routes with path ids on both APIs', () => {
      const withIds = routes.filter((r) => idParams(r.path).length > 0);
      expect(withIds.some((r) => r.path.startsWith(PUBLIC))).toBe(true);
      expect(withIds.some((r) => !r.path.startsWith(PUBLIC))).toBe(true);
    });

    it('answers every odd spelling of a real path id with the resource’s 404', async () => {
      const before = await rowsThatMustNotChange(t);
      const wrong: string[] = [];
      for (const route of routes) {
        for (const param of idParams(route.path)) {
          // One 404 code per parameter, the resource's own (never a 400 or another row).
          const codes = new Set<string>();
          for (const value of oddSpellings(realId(route.path, param))) {
            const res = await authorize(
              send(t, route.method, urlOf(route, { param, value })),
              route,
            ).send(BODY_METHODS.includes(route.method) ? {} : undefined);
            const code = (res.body as { error?: { code: string } }).error?.code ?? '';
            codes.add(code);
            if (res.status !== 404 || !/not_found$/.test(code))
              wrong.push(`${route.name} :${param}=${value} → ${res.status} ${code}`);
          }
          if (codes.size !== 1) wrong.push(`${route.name} :${param} → ${[...codes].join(', ')}`);
        }
      }
      expect(wrong).toEqual([]);
      expect(await rowsThatMustNotChange(t)).toEqual(before);
    });

    it('refuses a NUL character in any body string, naming the field', async () => {
      const wrong: string[] = [];
      for (const route of routes.filter((r) => BODY_METHODS.includes(r.method))) {
        for (const [body, field] of [
          [{ project_id: project.id, name: 'a\u0000b' }, 'name'],
          [{ project_id: project.id, deep: { list: ['ok', 'x\u0000'] } }, 'deep.list.1'],
          [{ project_id: project.id, ['k\u0000']: 'v' }, 'k\u0000'],
        ] as const) {
          const res = await sendJson(route, JSON.stringify(body));
          if (!isFieldRefusal(res, field)) wrong.push(`${route.name} ${field} → ${shown(res)}`);
        }
      }
      expect(wrong).toEqual([]);
    });

    it('refuses an unpaired surrogate (JSON "\\ud800") in any body string, naming the field', async () => {
      // isEmail's length check threw on it (a 500 on register and on adding a member).
      const bodyRoutes = routes.filter((r) => BODY_METHODS.includes(r.method));
      expect(
        await fieldRefusalsMissed(bodyRoutes, [
          [`{"project_id":${project.id},"email":"\\ud800"}`, 'email'],
          [`{"project_id":${project.id},"name":"a\\udc00b"}`, 'name'],
          [`{"project_id":${project.id},"deep":{"list":["ok","x\\ud83d"]}}`, 'deep.list.1'],
        ]),
      ).toEqual([]);
    });

    it('refuses a body key __proto__, constructor or prototype at any depth, naming it', async () => {
      // class-transformer dropped these silently, so the unknown-field check never saw them and a
      // create answered 201. Logging out comes last: were it to run, the session would end.
      const last = (r: WalkedRoute) => Number(r.path === '/api/auth/logout');
      const bodyRoutes = routes.filter((r) => BODY_METHODS.includes(r.method));
      expect(
        await fieldRefusalsMissed(
          bodyRoutes.sort((a, b) => last(a) - last(b)),
          [
            [
              `{"project_id":${project.id},"text":"x","constructor":{"prototype":{"admin":true}}}`,
              'constructor',
            ],
            [`{"project_id":${project.id},"text":"x","__proto__":{"admin":true}}`, '__proto__'],
            [
              `{"project_id":${project.id},"deep":{"list":[{"prototype":1}]}}`,
              'deep.list.0.prototype',
            ],
          ],
        ),
      ).toEqual([]);
    });

    it('refuses a JSON request without a body on every route that requires one', async () => {
      // An empty PUT of a project or a template answered 200, a change of nothing.
      const before = await rowsThatMustNotChange(t);
      const wrong: string[] = [];
      let checked = 0;
      for (const route of routes.filter((r) => BODY_METHODS.includes(r.method))) {
        const body = documentedOperation(document, route)?.requestBody;
        // A body the document calls optional (publish: the post's own targets) may be left out.
        if (!body?.content['application/json'] || body.required === false) continue;
        checked++;
        // Content-Length: 0 (supertest), and no Content-Length at all (curl -X PUT without -d).
        const res = await authorize(send(t, route.method, urlOf(route)), route).set(
          'Content-Type',
          'application/json',
        );
        if (res.status !== 400 || res.body.error?.code !== 'validation_failed')
          wrong.push(`${route.name} → ${shown(res)}`);
        const auth =
          route.kind === 'api_key' ? `Bearer ${key}` : route.kind === 'session' ? owner.auth : '';
        const bare = await withoutContentLength(t, route.method, urlOf(route), auth);
        if (bare.status !== 400 || bare.code !== 'validation_failed')
          wrong.push(`${route.name} without Content-Length → ${bare.status} ${bare.code}`);
      }
      expect(checked).toBeGreaterThan(10);
      expect(wrong).toEqual([]);
      expect(await rowsThatMustNotChange(t)).toEqual(before);
    });

    it('refuses a NUL character in any query value, naming the parameter', async () => {
      const wrong: string[] = [];
      for (const route of routes) {
        const url = `${urlOf(route)}?project_id=${project.id}&q=a%00b`;
        const res = await authorize(send(t, route.method, url), route).send(
          BODY_METHODS.includes(route.method) ? { project_id: project.id } : undefined,
        );
        if (!isFieldRefusal(res, 'q')) wrong.push(`${route.name} → ${shown(res)}`);
      }
      expect(wrong).toEqual([]);
    });

    it('answers JSON nested 10,000 deep with 400 invalid_json on every route with a body', async () => {
      const deep = `{"project_id":${project.id},"a":${'{"b":'.repeat(10_000)}1${'}'.repeat(10_001)}`;
      const wrong: string[] = [];
      for (const route of routes.filter((r) => BODY_METHODS.includes(r.method))) {
        const res = await authorize(send(t, route.method, urlOf(route)), route)
          .set('Content-Type', 'application/json')
          .send(deep);
        if (res.status !== 400 || res.body.error?.code !== 'invalid_json')
          wrong.push(`${route.name} → ${shown(res)}`);
      }
      expect(wrong).toEqual([]);
    });

    it('answers every documented query parameter with hostile values without a 5xx', async () => {
      const wrong: string[] = [];
      let sent = 0;
      for (const route of routes) {
        const names = (documentedOperation(document, route)?.parameters ?? [])
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => parameter.name);
        for (const name of names) {
          for (const value of HOSTILE_QUERY_VALUES) {
            // The route's project, when it takes one in the query, is sane.
            const own =
              names.includes('project_id') && name !== 'project_id'
                ? `project_id=${project.id}&`
                : '';
            const res = await authorize(
              send(t, route.method, `${urlOf(route)}?${own}${name}=${value}`),
              route,
            );
            sent++;
            if (res.status >= 500) wrong.push(`${route.name} ${name}=${value} → ${shown(res)}`);
          }
        }
      }
      expect(sent).toBeGreaterThan(50);
      expect(wrong).toEqual([]);
    });

    // Last in this block: a hostile value that happens to be valid is carried out.
    it('answers every documented body field with hostile values without a 5xx', async () => {
      const sane: Record<string, unknown> = {
        project_id: project.id,
        post_id: realId('/api/posts/:id', 'id'),
        email: 'someone@example.com',
        password: 'correct horse battery staple',
        name: 'Probe',
        text: 'Probe',
        prompt: 'Probe',
        role: 'viewer',
        platform: 'telegram',
        bot_token: '123456:unknown-to-the-stand-in',
        chat: '@unknown',
        url: 'http://127.0.0.9:9/hook',
        events: ['post.published'],
        targets: [],
      };
      const wrong: string[] = [];
      let sent = 0;
      for (const route of routes.filter((r) => BODY_METHODS.includes(r.method))) {
        // Logging out would end the session the other routes are called with.
        if (route.path === '/api/auth/logout') continue;
        const schema = resolveSchema(
          document,
          documentedOperation(document, route)?.requestBody?.content['application/json']?.schema,
        );
        const fields = Object.keys(schema?.properties ?? {});
        for (const field of fields) {
          // The rest of the body is sane, so that the hostile value is what gets looked at.
          const rest: Record<string, unknown> = {};
          for (const name of [...(schema?.required ?? []), 'text'])
            if (name !== field && name in (schema?.properties ?? {})) rest[name] = sane[name];
          const prefix = JSON.stringify(rest).slice(0, -1);
          for (const value of HOSTILE_VALUES) {
            const res = await authorize(send(t, route.method, urlOf(route)), route)
              .set('Content-Type', 'application/json')
              .send(`${prefix}${prefix === '{' ? '' : ','}${JSON.stringify(field)}:${value}}`);
            sent++;
            const code = (res.body as { error?: { code?: string } }).error?.code;
            // 502 and 503 are a dependency's answers (the download by link, the AI provider).
            if (res.status >= 500 && !([502, 503].includes(res.status) && code))
              wrong.push(`${route.name} ${field}=${value.slice(0, 40)} → ${shown(res)}`);
          }
        }
      }
      expect(sent).toBeGreaterThan(1_000);
      expect(wrong).toEqual([]);
    });
  });

  describe('specific fields and shapes', () => {
    let w: TelegramWorld;
    let t: TestApp;
    let owner: SignedInUser;
    let project: TestProject;
    let key: string;

    beforeAll(async () => {
      w = await startWithTelegram();
      t = w.t;
      ({ owner, project, key } = await w.make.owner());
    });

    afterAll(() => w?.close());

    it.each([
      [
        'register name',
        '/api/auth/register',
        false,
        { email: 'n@example.com', password: 'correct horse battery', name: 'a\u0000b' },
        'name',
      ],
      [
        'login email',
        '/api/auth/login',
        false,
        { email: 'a\u0000@example.com', password: 'x' },
        'email',
      ],
      ['API key name', '/api/api-keys', true, { name: 'k\u0000' }, 'name'],
      ['project name', '/api/projects', true, { name: 'p\u0000', timezone: 'UTC' }, 'name'],
      [
        'template name',
        '/api/posts/templates',
        true,
        { project_id: 0, name: 't\u0000', text: 'x' },
        'name',
      ],
      ['app post text', '/api/posts', true, { project_id: 0, text: 'a\u0000b' }, 'text'],
    ])(
      'refuses NUL in the %s with 400 validation_failed',
      async (_name, url, signedIn, body, field) => {
        const payload = 'project_id' in body ? { ...body, project_id: project.id } : body;
        let request = t.http.post(url);
        if (signedIn) request = request.set('Authorization', owner.auth);
        const res = await request.send(payload);
        expect(isFieldRefusal(res, field)).toBe(true);
      },
    );

    it('refuses null for a field that may only be left out, naming it, and changes nothing', async () => {
      const post = (
        await t.http
          .post(`${PUBLIC}/projects/${project.id}/posts`)
          .set('Authorization', `Bearer ${key}`)
          .send({ text: 'Kept' })
          .expect(201)
      ).body as { id: number };
      const res = await t.http
        .patch(`${PUBLIC}/projects/${project.id}/posts/${post.id}`)
        .set('Authorization', `Bearer ${key}`)
        .send({ text: 'Changed', media_ids: null });
      expect(isFieldRefusal(res, 'media_ids')).toBe(true);
      const renamed = await t.http
        .put(`/api/projects/${project.id}`)
        .set('Authorization', owner.auth)
        .send({ name: null });
      expect(isFieldRefusal(renamed, 'name')).toBe(true);
      const { rows } = await t.db.query('SELECT text FROM posts WHERE id = $1', [post.id]);
      expect(rows).toEqual([{ text: 'Kept' }]);
      const { rows: projects } = await t.db.query('SELECT name FROM projects WHERE id = $1', [
        project.id,
      ]);
      expect(projects).toEqual([{ name: project.name }]);
    });

    it('refuses NUL in a public post’s text', async () => {
      const res = await t.http
        .post(`${PUBLIC}/projects/${project.id}/posts`)
        .set('Authorization', `Bearer ${key}`)
        .send({ text: 'a\u0000b' });
      expect(isFieldRefusal(res, 'text')).toBe(true);
      expect(res.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
    });

    it('accepts 32 levels of nesting and refuses 33 with invalid_json (checked before parsing)', async () => {
      const nested = (levels: number) =>
        `{"email":"a@example.com","password":"x","n":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
      const ok = await t.http
        .post('/api/auth/login')
        .set('Content-Type', 'application/json')
        .send(nested(32));
      expect(ok.body.error.code).not.toBe('invalid_json');
      const deep = await t.http
        .post('/api/auth/login')
        .set('Content-Type', 'application/json')
        .send(nested(33));
      expect(deep.status).toBe(400);
      expect(deep.body.error.code).toBe('invalid_json');
      // Brackets inside strings are text, not nesting.
      const inString = await t.http
        .post('/api/auth/login')
        .set('Content-Type', 'application/json')
        .send(`{"email":"a@example.com","password":"${'[{\\"'.repeat(100)}"}`);
      expect(inString.body.error.code).not.toBe('invalid_json');
    });

    it.each(['null', '42', '"x"', 'true', '[]', '[{}]'])(
      'answers the JSON %s, valid but not an object, with 400 validation_failed',
      async (text) => {
        const res = await t.http
          .post('/api/auth/login')
          .set('Content-Type', 'application/json')
          .send(text)
          .expect(400);
        expect(res.body.error.code).toBe('validation_failed');
      },
    );

    it('gives one message per bad query parameter', async () => {
      const res = await t.http
        .get(`${PUBLIC}/projects/${project.id}/posts?limit=abc`)
        .set('Authorization', `Bearer ${key}`)
        .expect(400);
      expect(res.body.error).toEqual({
        code: 'validation_failed',
        message: 'limit: limit must be an integer from 1 to 100',
        details: [{ field: 'limit', message: 'limit must be an integer from 1 to 100' }],
      });
    });

    it('gives one message for one missing field', async () => {
      const res = await t.http
        .post(`${PUBLIC}/projects/${project.id}/media`)
        .set('Authorization', `Bearer ${key}`)
        .send({})
        .expect(400);
      expect(res.body.error).toEqual({
        code: 'validation_failed',
        message: 'url: url is required',
        details: [{ field: 'url', message: 'url is required' }],
      });
    });

    it('still names every bad field, each once', async () => {
      const res = await t.http
        .post('/api/projects')
        .set('Authorization', owner.auth)
        .send({ name: 7, timezone: 'Nowhere/Land', extra: 1 })
        .expect(400);
      const fields = res.body.error.details.map((d: { field: string }) => d.field);
      expect([...fields].sort()).toEqual(['extra', 'name', 'timezone']);
    });
  });

  describe('body errors wait for the guards', () => {
    let w: TelegramWorld;
    let t: TestApp;
    let make: Factory;
    let owner: SignedInUser;
    let project: TestProject;
    let postId: number;
    let webhookId: number;
    let routes: WalkedRoute[];
    const LIMIT = 2;

    beforeAll(async () => {
      w = await startWithTelegram({
        RATE_LIMIT_CREATE_POST: String(LIMIT),
        RATE_LIMIT_PUBLISH: String(LIMIT),
        RATE_LIMIT_UPLOAD: String(LIMIT),
        RATE_LIMIT_OTHER: String(LIMIT),
        ...WEBHOOK_RECEIVER_ENV,
      });
      ({ t, make } = w);
      ({ owner, project } = await make.owner());
      webhookId = await newWebhook(t, owner, project);
      const post = await t.http
        .post(`${PUBLIC}/projects/${project.id}/posts`)
        .set('Authorization', `Bearer ${await make.apiKey(owner)}`)
        .send({ text: 'a draft' })
        .expect(201);
      postId = (post.body as { id: number }).id;
      routes = walk(t).filter((r) => r.kind === 'api_key' && r.method === 'POST');
    });

    afterAll(() => w?.close());

    const urlOf = (route: WalkedRoute) =>
      route.path
        .replace(':projectId', String(project.id))
        .replace(':postId', String(postId))
        .replace(':webhookId', String(webhookId));

    it('covers every public POST route', () => {
      expect(routes.map((r) => r.path).sort()).toEqual(
        expect.arrayContaining([
          `/${PUBLIC.slice(1)}/projects/:projectId/media`,
          `/${PUBLIC.slice(1)}/projects/:projectId/posts`,
          `/${PUBLIC.slice(1)}/projects/:projectId/posts/:postId/publish`,
        ]),
      );
      for (const route of routes) expect(idParams(route.path)).not.toContain('id');
    });

    const MALFORMED = '{"text": "oops",';
    const HUGE = JSON.stringify({ text: 'x'.repeat(1024 * 1024 + 10) });

    /** Each kind of caller and what the order of checks answers before the body is looked at. */
    async function callers(): Promise<Array<[string, string | null, number, string]>> {
      const stranger = await make.admin('Stranger');
      await make.project(stranger, 'Elsewhere');
      const observer = await make.admin('Observer');
      await addMember(t, owner, project, observer, 'observer');
      return [
        ['no key', null, 401, 'unauthorized'],
        ['a malformed key', 'Bearer hrld_live_nope', 401, 'unauthorized'],
        [
          'a key lacking the scope',
          `Bearer ${await make.apiKey(owner, { scopes: ['projects:read'] })}`,
          403,
          'insufficient_scope',
        ],
        ['a stranger’s key', `Bearer ${await make.apiKey(stranger)}`, 404, 'project_not_found'],
        ['an observer’s key', `Bearer ${await make.apiKey(observer)}`, 403, 'forbidden'],
      ];
    }

    it('answers malformed and oversized bodies by the caller first, with the rate-limit headers', async () => {
      const wrong: string[] = [];
      // Fresh callers per route: two routes of one rate-limit category must not share a budget.
      // An unreadable message to the MCP endpoint names no tool, hence no scope or project: only
      // the key and the rate limit come before its error (the next test).
      for (const route of routes.filter((r) => r.path !== MCP_PATH)) {
        for (const [who, auth, status, code] of await callers()) {
          for (const [what, body] of [
            ['malformed', MALFORMED],
            ['over 1 MB', HUGE],
          ]) {
            let request = t.http.post(urlOf(route)).set('Content-Type', 'application/json');
            if (auth) request = request.set('Authorization', auth);
            const res = await request.send(body);
            const limited = auth !== null && status !== 401;
            const headers = limited === /^\d+$/.test(res.headers['x-ratelimit-limit'] ?? '');
            if (res.status !== status || res.body.error?.code !== code || !headers)
              wrong.push(`${who}, ${what}, ${route.path} → ${shown(res)}`);
          }
        }
      }
      expect(wrong).toEqual([]);
    });

    it('answers the owner’s malformed body with 400 and headers, counts it, then 429', async () => {
      for (const route of routes) {
        const auth = `Bearer ${await make.apiKey(owner)}`;
        // Each route counts in its own category; the first answer says that category's limit.
        let limit = LIMIT;
        for (let i = 0; i < limit; i++) {
          const body = i === 0 ? MALFORMED : HUGE;
          const res = await t.http
            .post(urlOf(route))
            .set('Authorization', auth)
            .set('Content-Type', 'application/json')
            .send(body);
          expect([route.path, res.status, res.body.error.code]).toEqual([
            route.path,
            i === 0 ? 400 : 413,
            i === 0 ? 'invalid_json' : 'payload_too_large',
          ]);
          if (i === 0) limit = Number(res.headers['x-ratelimit-limit']);
          expect(res.headers['x-ratelimit-remaining']).toBe(String(limit - 1 - i));
        }
        const refused = await t.http
          .post(urlOf(route))
          .set('Authorization', auth)
          .set('Content-Type', 'application/json')
          .send(MALFORMED);
        expect([route.path, refused.status, refused.body.error.code]).toEqual([
          route.path,
          429,
          'rate_limit_exceeded',
        ]);
        expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      }
    });

    it('answers an unauthenticated body on the application API with 401, not 400', async () => {
      for (const body of [MALFORMED, HUGE]) {
        const res = await t.http
          .post('/api/posts')
          .set('Content-Type', 'application/json')
          .send(body)
          .expect(401);
        expect(res.body.error.code).toBe('unauthorized');
      }
    });
  });
});

/** 400 validation_failed naming exactly this field: how unstorable text (NUL, half a surrogate pair) is refused. */
/**
 * A request with a JSON content type, no body and no Content-Length (as `curl -X PUT` without
 * data sends it), which supertest cannot make: written on a socket of its own.
 */
async function withoutContentLength(
  t: TestApp,
  method: string,
  path: string,
  authorization: string,
): Promise<{ status: number; code?: string }> {
  const server = t.app.getHttpServer() as Server;
  if (!server.listening)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  const headers = [
    `${method} ${path} HTTP/1.1`,
    'Host: herald.test',
    'Content-Type: application/json',
    ...(authorization ? [`Authorization: ${authorization}`] : []),
    'Connection: close',
  ];
  socket.write(`${headers.join('\r\n')}\r\n\r\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
  const code = /"code":"([a-z_]+)"/.exec(text)?.[1];
  return { status, code };
}

function isFieldRefusal(res: Answer, field: string): boolean {
  const error = (res.body as { error?: { code: string; details?: { field: string }[] } }).error;
  return (
    res.status === 400 &&
    error?.code === 'validation_failed' &&
    error.details?.length === 1 &&
    error.details[0].field === field
  );
}

function shown(res: Answer): string {
  return `${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
}

/** What an odd id must never reach: the rows it could change or delete. */
async function rowsThatMustNotChange(t: TestApp): Promise<unknown[]> {
  const queries = [
    'SELECT id, status, text FROM posts ORDER BY id',
    'SELECT id, revoked_at FROM api_keys ORDER BY id',
    'SELECT project_id, user_id, role FROM project_members ORDER BY user_id',
    'SELECT id, name FROM post_templates ORDER BY id',
    'SELECT id FROM accounts ORDER BY id',
    'SELECT id, name FROM projects ORDER BY id',
  ];
  // One after another: t.db is one connection, and pg stops queueing a client's queries in pg@9.
  const rows: unknown[] = [];
  for (const sql of queries) rows.push((await t.db.query(sql)).rows);
  return rows;
}

import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { APP_API_TAG, PUBLIC_API_PREFIX, PUBLIC_API_TAG } from '../../access/decorators';
import type { AppConfig } from '../../infrastructure/config/config';
import { errorStatus, type ErrorCode } from '../errors/error-codes';

type OperationObject = NonNullable<OpenAPIObject['paths'][string]['get']>;
type ParameterOrReference = NonNullable<OperationObject['parameters']>[number];
type ParameterObject = Extract<ParameterOrReference, { in: string }>;
type ReferenceObject = Extract<ParameterOrReference, { $ref: string }>;
type ResponseObject = Extract<OperationObject['responses'][string], { description: string }>;

export interface OpenApiDocuments {
  /** Served at /api/openapi.json and shown at /api/docs. */
  full: OpenAPIObject;
  /** Served at /api/public/v1/openapi.json. */
  publicOnly: OpenAPIObject;
}

const PUBLIC_PREFIX = `/${PUBLIC_API_PREFIX}/`;
const ERROR_SCHEMA = '#/components/schemas/ErrorResponseDto';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** From the app's routes, then made true to what the service answers. */
export function buildOpenApiDocuments(app: INestApplication, config: AppConfig): OpenApiDocuments {
  const builder = new DocumentBuilder()
    .setTitle('Herald')
    .setDescription(
      'Publishing backend. The public API lives under /api/public/v1 and takes `Authorization: Bearer hrld_live_…`. ' +
        'Every error answers `{ error: { code, message } }`.',
    )
    .setVersion('1')
    .setLicense('Proprietary', `${config.publicBaseUrl}/api/docs`)
    .addServer(config.publicBaseUrl)
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: 'API key: hrld_live_<public>.<secret>, or hrld_test_… in test mode',
      },
      'api-key',
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'Session token from /api/auth/login' },
      'session',
    )
    .addTag(PUBLIC_API_TAG, 'Versioned API for integrators, authenticated with API keys')
    .addTag(APP_API_TAG, 'The internal frontend’s API, authenticated with session tokens')
    .build();
  const full = SwaggerModule.createDocument(app, builder, { autoTagControllers: false });
  for (const [path, item] of Object.entries(full.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) completeOperation(path, operation);
    }
  }
  fixNullableReferences(full);
  return { full, publicOnly: publicDocument(full) };
}

export function serveOpenApi(app: INestApplication, documents: OpenApiDocuments): void {
  const http = app.getHttpAdapter();
  http.get(`${PUBLIC_PREFIX}openapi.json`, (_req: Request, res: Response) =>
    res.json(documents.publicOnly),
  );
  http.get('/api/openapi.json', (_req: Request, res: Response) => res.json(documents.full));
  SwaggerModule.setup('api/docs', app, documents.full, {
    jsonDocumentUrl: 'api/docs/openapi.json',
  });
}

/** The errors every operation of a kind can answer; each route adds its own with @ApiErrors. */
function completeOperation(path: string, operation: OperationObject): void {
  const isPublicApi = path.startsWith(PUBLIC_PREFIX);
  const secured = (operation.security ?? []).length > 0;
  if (!secured) operation.security = [];
  declarePathParameters(path, operation);
  const hasPathId = (operation.parameters ?? []).some(
    (p: ParameterObject | ReferenceObject) => 'in' in p && p.in === 'path',
  );
  const codes: ErrorCode[] = [];
  // Every route refuses a NUL character in its query (RequestInputGuard).
  codes.push('validation_failed');
  // The body parser reads a JSON body on any method, and its errors are raised on any route.
  codes.push('invalid_json', 'payload_too_large', 'unsupported_media_type');
  if (secured) codes.push('unauthorized', 'forbidden');
  if (isPublicApi) codes.push('insufficient_scope');
  if (secured) codes.push('rate_limit_exceeded');
  if (secured && (hasPathId || !isPublicApi)) codes.push('project_not_found');
  if (hasPathId) codes.push('not_found');
  codes.push('internal_error', 'service_unavailable');
  addErrors(operation, codes);
  if ((operation as unknown as Record<string, unknown>)['x-rules-per-operation'])
    acceptJsonRpcErrors(operation);
  if (secured) documentRateLimitHeaders(operation);
  for (const [status, response] of Object.entries(operation.responses)) {
    if (status === '503' || status === '429') {
      (response as ResponseObject).headers = {
        ...(response as ResponseObject).headers,
        'Retry-After': {
          description: 'Whole seconds to wait before trying again, at least 1',
          required: true,
          schema: { type: 'integer', minimum: 1 },
        },
      };
    }
  }
}

/** The MCP transport answers unreadable messages as JSON-RPC errors. */
function acceptJsonRpcErrors(operation: OperationObject): void {
  const answer = operation.responses['400'] as ResponseObject | undefined;
  if (!answer) return;
  answer.content = {
    'application/json': {
      schema: {
        anyOf: [
          { $ref: ERROR_SCHEMA },
          {
            type: 'object',
            required: ['jsonrpc', 'error'],
            properties: {
              jsonrpc: { type: 'string', enum: ['2.0'] },
              error: {
                type: 'object',
                required: ['code', 'message'],
                properties: { code: { type: 'integer' }, message: { type: 'string' } },
              },
            },
          },
        ],
      },
    },
  };
}

function addErrors(operation: OperationObject, codes: ErrorCode[]): void {
  for (const code of codes) {
    const status = String(errorStatus(code));
    const existing = operation.responses[status] as ResponseObject | undefined;
    if (!existing) {
      operation.responses[status] = {
        description: `error.code: ${code}`,
        content: { 'application/json': { schema: { $ref: ERROR_SCHEMA } } },
      };
      continue;
    }
    existing.content = { 'application/json': { schema: { $ref: ERROR_SCHEMA } } };
    const match = /^error\.code: (.*)$/.exec(existing.description);
    const listed = match ? match[1].split(', ') : [];
    if (!listed.includes(code))
      existing.description = `error.code: ${[...listed, code].join(', ')}`;
  }
}

/** Ids are integers. */
function declarePathParameters(path: string, operation: OperationObject): void {
  const parameters = (operation.parameters ?? []) as ParameterObject[];
  for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
    let parameter = parameters.find((p) => p.in === 'path' && p.name === name);
    if (!parameter) {
      parameter = { name, in: 'path', required: true };
      parameters.push(parameter);
    }
    if (/id$/i.test(name)) {
      parameter.schema = { type: 'integer', minimum: 1, maximum: 2_147_483_647 };
      parameter.description ??= 'Positive decimal id without sign or leading zero';
    }
  }
  operation.parameters = parameters;
}

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed per window in this route’s category',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Reset': {
    description: 'Unix epoch seconds at which the window resets',
    schema: { type: 'integer' },
  },
};

/** Documented, not required: absent on 401, outages, per-address 429s, a failing-open limiter. */
function documentRateLimitHeaders(operation: OperationObject): void {
  for (const [status, response] of Object.entries(operation.responses) as [
    string,
    ResponseObject,
  ][]) {
    if (['401', '500', '503'].includes(status) || !('description' in response)) continue;
    const answer = response as ResponseObject;
    answer.headers = {
      ...answer.headers,
      ...Object.fromEntries(
        Object.entries(RATE_LIMIT_HEADERS).map(([name, header]) => [
          name,
          { ...header, required: false },
        ]),
      ),
    };
  }
}

/** OpenAPI 3.0 ignores `nullable` beside `allOf`/`$ref`: rewrite to `oneOf: [X, null]`. */
function fixNullableReferences(document: OpenAPIObject): void {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    const schema = node as Record<string, unknown> & { allOf?: unknown[]; oneOf?: unknown[] };
    const single =
      schema.allOf?.length === 1 ? schema.allOf[0] : schema.$ref ? { $ref: schema.$ref } : null;
    if (schema.nullable === true && single) {
      delete schema.allOf;
      delete schema.$ref;
      delete schema.nullable;
      delete schema.type;
      schema.oneOf = [single, { type: 'object', nullable: true, enum: [null] }];
    }
    Object.values(schema).forEach(visit);
  };
  visit(document.components);
  visit(document.paths);
}

function publicDocument(full: OpenAPIObject): OpenAPIObject {
  const paths = Object.fromEntries(
    Object.entries(full.paths).filter(([path]) => path.startsWith(PUBLIC_PREFIX)),
  );
  const schemas = full.components?.schemas ?? {};
  const used = new Set<string>();
  const pending: unknown[] = [paths];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const name = value.replace('#/components/schemas/', '');
        if (!used.has(name)) {
          used.add(name);
          pending.push(schemas[name]);
        }
      } else {
        pending.push(value);
      }
    }
  }
  return {
    ...full,
    paths,
    tags: full.tags?.filter((tag) => tag.name === PUBLIC_API_TAG),
    components: {
      ...full.components,
      schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name))),
      securitySchemes: { 'api-key': full.components!.securitySchemes!['api-key'] },
    },
  };
}

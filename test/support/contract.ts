import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';

/**
 * The OpenAPI document as a contract: every answer a test receives through
 * `startTestApp`'s `http` agent is checked against the served document: its status must be
 * documented for the operation, its JSON body must match that status's schema, and the headers
 * documented as required must be there. A mismatch fails the test that received the answer.
 */

interface OpenApiDocument {
  paths: Record<string, Record<string, OperationLike>>;
  components?: Record<string, unknown>;
}

interface OperationLike {
  responses?: Record<string, ResponseLike>;
}

interface ResponseLike {
  content?: Record<string, { schema?: unknown }>;
  headers?: Record<string, { required?: boolean }>;
}

interface Route {
  path: string;
  method: string;
  pattern: RegExp;
  params: number;
  operation: OperationLike;
}

const ANY_METHOD = ['get', 'put', 'post', 'delete', 'patch'];

export interface ContractOptions {
  /** The app answers without X-RateLimit-* headers (RATE_LIMIT_ENABLED=false). */
  rateLimitsOff?: boolean;
}

export class OpenApiContract {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly routes: Route[] = [];
  private readonly validators = new Map<unknown, ValidateFunction>();

  constructor(
    document: OpenApiDocument,
    private readonly options: ContractOptions = {},
  ) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', components: document.components ?? {} });
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of ANY_METHOD) {
        const operation = item[method];
        if (!operation) continue;
        const source = path
          .split(/\{\w+\}/)
          .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
          .join('[^/]+');
        this.routes.push({
          path,
          method,
          pattern: new RegExp(`^${source}$`),
          params: (path.match(/\{/g) ?? []).length,
          operation,
        });
      }
    }
    // A literal segment wins over a parameter, as the router registers them.
    this.routes.sort((a, b) => a.params - b.params);
  }

  /** What is wrong with one answer, or null when it keeps the contract (or names no operation). */
  check(method: string, url: string, res: Response): string | null {
    const pathname = new URL(url, 'http://x').pathname;
    const route = this.routes.find(
      (r) => r.method === method.toLowerCase() && r.pattern.test(pathname),
    );
    if (!route) return null;
    const where = `${method.toUpperCase()} ${pathname} (${route.path}) → ${res.status}`;
    const responses = route.operation.responses ?? {};
    const documented = responses[String(res.status)] ?? responses.default;
    if (!documented) return `${where}: status not documented; body ${snippet(res)}`;
    for (const [name, header] of Object.entries(documented.headers ?? {})) {
      if (!header.required) continue;
      if (this.options.rateLimitsOff && /^x-ratelimit-/i.test(name)) continue;
      if (res.headers[name.toLowerCase()] === undefined)
        return `${where}: documented header ${name} missing`;
    }
    const isJson = /^application\/json/.test(String(res.headers['content-type'] ?? ''));
    const schema = documented.content?.['application/json']?.schema;
    if (!isJson) return null;
    if (schema === undefined) {
      const empty = res.text === '' || res.text === undefined;
      return empty ? null : `${where}: JSON body where none is documented: ${snippet(res)}`;
    }
    const validate = this.validatorFor(schema);
    if (validate(res.body)) return null;
    const errors = (validate.errors ?? [])
      .slice(0, 3)
      .map((e) => `${e.instancePath || '/'} ${e.message}`)
      .join('; ');
    return `${where}: body off its schema (${errors}); body ${snippet(res)}`;
  }

  private validatorFor(schema: unknown): ValidateFunction {
    let validate = this.validators.get(schema);
    if (!validate) {
      validate = this.ajv.compile(rebase(schema) as object);
      this.validators.set(schema, validate);
    }
    return validate;
  }
}

/** Points local references at the registered components. */
function rebase(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rebase);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) =>
      key === '$ref' && typeof value === 'string' && value.startsWith('#/')
        ? [key, `openapi${value}`]
        : [key, rebase(value)],
    ),
  );
}

function snippet(res: Response): string {
  return (res.text ?? '').slice(0, 300);
}

/** Mismatches seen since the current test began; the afterEach below fails the test with them. */
const mismatches: string[] = [];

export function recordMismatch(problem: string): void {
  mismatches.push(problem);
}

// Registered once per test file (jest gives each file its own module registry).
if (typeof afterEach === 'function') {
  afterEach(() => {
    if (mismatches.length === 0) return;
    const problems = mismatches.splice(0);
    throw new Error(
      `Answers that break the OpenAPI document:\n- ${problems.slice(0, 20).join('\n- ')}`,
    );
  });
}

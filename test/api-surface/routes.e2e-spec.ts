import { ApplicationConfig, Reflector } from '@nestjs/core';
import { ApiKeyGuard } from '../../src/access/api-key.guard';
import {
  AdminOnlyMetadata,
  AnySignedInUserMetadata,
  AUTH_KIND,
  AuthKind,
  PermissionMetadata,
  RulesPerOperationMetadata,
  ScopeMetadata,
} from '../../src/access/decorators';
import { ScopeGuard } from '../../src/access/scope.guard';
import { SessionGuard } from '../../src/access/session.guard';
import { MCP_TOOLS } from '../../src/domains/mcp/mcp-tools';
import { PermissionGuard } from '../../src/access/permission.guard';
import { registeredRoutes } from '../support/routes';
import { startTestApp, TestApp } from '../support/test-app';

interface Route {
  name: string;
  kind?: AuthKind;
  scopes?: string[];
  permission: boolean;
  open: boolean;
  /** The MCP endpoint: each operation in a request runs the rules of the route it names. */
  perOperation: boolean;
  handlerName: string;
}

/**
 * Every route declares who may call it; guards fail closed, in the order of checks
 * (docs/api-rules.md#order-of-checks).
 */
describe('Route declarations and guard order', () => {
  let t: TestApp;
  let routes: Route[];

  beforeAll(async () => {
    t = await startTestApp();
    const reflector = t.app.get(Reflector);
    routes = registeredRoutes(t.app).map(({ route, handlerName, targets }) => ({
      name: `${route} (${handlerName})`,
      kind: reflector.getAllAndOverride<AuthKind | undefined>(AUTH_KIND, targets),
      scopes: reflector.getAllAndOverride(ScopeMetadata, targets),
      permission: Boolean(reflector.getAllAndOverride(PermissionMetadata, targets)),
      open: Boolean(
        reflector.getAllAndOverride(AnySignedInUserMetadata, targets) ||
        reflector.getAllAndOverride(AdminOnlyMetadata, targets),
      ),
      perOperation: Boolean(reflector.getAllAndOverride(RulesPerOperationMetadata, targets)),
      handlerName,
    }));
  });

  afterAll(() => t?.close());

  it('finds the routes', () => {
    expect(routes.length).toBeGreaterThan(10);
  });

  it('gives every route an authentication kind', () => {
    expect(routes.filter((r) => r.kind === undefined).map((r) => r.name)).toEqual([]);
  });

  it('gives every public API route a scope', () => {
    const bad = routes.filter(
      (r) => r.kind === 'api_key' && !r.perOperation && !(r.scopes && r.scopes.length > 0),
    );
    expect(bad.map((r) => r.name)).toEqual([]);
  });

  it('lets only the MCP endpoint defer its rules, each tool to a scoped public route', () => {
    const deferring = routes.filter((r) => r.perOperation).map((r) => r.name.split(' (')[0]);
    expect(deferring.sort()).toEqual(
      ['DELETE', 'GET', 'POST'].map((method) => `${method} /api/public/v1/mcp`),
    );
    for (const tool of MCP_TOOLS) {
      const [method, path] = tool.route.split(' ');
      const name = `${method} /api/public/v1${path.replace(/\{(\w+)\}/g, ':$1')}`;
      const route = routes.find((r) => r.name.split(' (')[0] === name);
      expect([tool.name, route?.kind, route?.perOperation]).toEqual([tool.name, 'api_key', false]);
      expect(route?.scopes?.length).toBeGreaterThan(0);
    }
  });

  it('gives every application route a permission or an explicit open rule', () => {
    const bad = routes.filter((r) => r.kind === 'session' && !r.permission && !r.open);
    expect(bad.map((r) => r.name)).toEqual([]);
  });

  it('keeps public routes public on purpose only', () => {
    const open = routes.filter((r) => r.kind === 'public').map((r) => r.name.split(' (')[0]);
    for (const name of open)
      expect(name).toMatch(
        /^(GET \/health\/|POST \/api\/auth\/(register|login)|GET \/media\/|GET \/metrics$|(GET|POST) \/admin\/(login|logout)$|GET \/api\/oauth\/:platform\/callback$)/,
      );
  });

  it('runs the global guards in the order of checks: key, (rate limit), scope, permission', () => {
    const guards = t.app.get(ApplicationConfig).getGlobalGuards();
    const names = guards.map((guard) => guard.constructor.name);
    const order = [ApiKeyGuard, SessionGuard, ScopeGuard, PermissionGuard].map((g) =>
      names.indexOf(g.name),
    );
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const limiter = names.findIndex((name) => /RateLimit|Throttl/.test(name));
    if (limiter >= 0) {
      expect(limiter).toBeGreaterThan(names.indexOf(ApiKeyGuard.name));
      expect(limiter).toBeLessThan(names.indexOf(ScopeGuard.name));
    }
  });
});

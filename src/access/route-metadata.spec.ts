import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppApi, OpenRoute, PublicApi } from './decorators';
import { routeRules } from './route-metadata';

function contextOf(controller: new () => object, method: string): ExecutionContext {
  const handler = (controller.prototype as Record<string, unknown>)[method];
  return { getHandler: () => handler, getClass: () => controller } as ExecutionContext;
}

@PublicApi({ scope: 'posts:read', rateLimit: 'publish' })
class PostsController {
  list(): void {}

  @PublicApi({
    scope: 'posts:write',
    permission: 'can_publish',
    rateLimit: 'create_post',
    whenBodySets: { fields: ['publish_now'], scopes: ['posts:publish'] },
  })
  create(): void {}
}

/** Inherits `list`: the same handler function, under a class with other rules. */
@AppApi({ adminOnly: true })
class AdminPostsController extends PostsController {}

class Undeclared {
  handle(): void {}
}

@OpenRoute()
class HealthController {
  check(): void {}
}

describe('routeRules', () => {
  const reflector = new Reflector();

  it("reads the class's rules, a method's own declaration overriding its class's", () => {
    expect(routeRules(reflector, contextOf(PostsController, 'list'))).toEqual({
      authKind: 'api_key',
      scopes: ['posts:read'],
      whenBodySets: undefined,
      permission: undefined,
      anySignedInUser: false,
      adminOnly: false,
      rulesPerOperation: undefined,
      rateLimitCategory: 'publish',
    });
    expect(routeRules(reflector, contextOf(PostsController, 'create'))).toEqual({
      authKind: 'api_key',
      scopes: ['posts:write'],
      whenBodySets: { fields: ['publish_now'], scopes: ['posts:publish'] },
      permission: { flag: 'can_publish', source: {} },
      anySignedInUser: false,
      adminOnly: false,
      rulesPerOperation: undefined,
      rateLimitCategory: 'create_post',
    });
  });

  it('a route that declares nothing has no auth kind and the default category', () => {
    expect(routeRules(reflector, contextOf(Undeclared, 'handle'))).toMatchObject({
      authKind: undefined,
      rateLimitCategory: 'other',
    });
    expect(routeRules(reflector, contextOf(HealthController, 'check')).authKind).toBe('public');
  });

  it('remembers the rules per handler and class: an inherited handler has its own class’s', () => {
    const inherited = contextOf(AdminPostsController, 'list');
    expect(inherited.getHandler()).toBe(contextOf(PostsController, 'list').getHandler());
    const first = routeRules(reflector, inherited);
    expect(first).toMatchObject({ authKind: 'session', adminOnly: true });
    expect(routeRules(reflector, inherited)).toBe(first);
    expect(routeRules(reflector, contextOf(PostsController, 'list'))).toMatchObject({
      authKind: 'api_key',
      adminOnly: false,
    });
  });

  it('reads the metadata once per route', () => {
    @OpenRoute()
    class DocsController {
      show(): void {}
    }
    const read = jest.spyOn(reflector, 'getAllAndOverride');
    try {
      const context = contextOf(DocsController, 'show');
      routeRules(reflector, context);
      const reads = read.mock.calls.length;
      expect(reads).toBeGreaterThan(0);
      routeRules(reflector, context);
      routeRules(reflector, context);
      expect(read.mock.calls.length).toBe(reads);
    } finally {
      read.mockRestore();
    }
  });
});

import { INestApplication, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';

/* eslint-disable @typescript-eslint/no-unsafe-function-type -- Reflector takes handlers and classes as Function */
export interface RegisteredRoute {
  /** `METHOD /path`, e.g. `GET /api/public/v1/projects/:projectId/channels`. */
  route: string;
  /** `Controller.method`, for messages. */
  handlerName: string;
  /** The handler and its controller, in the order `Reflector.getAllAndOverride` reads them. */
  targets: [Function, Function];
}
/* eslint-enable @typescript-eslint/no-unsafe-function-type */

/** Every route the running app registered, walked from its controllers' metadata. */
export function registeredRoutes(app: INestApplication): RegisteredRoute[] {
  const found: RegisteredRoute[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as new (...args: unknown[]) => object;
      if (!controller?.prototype) continue;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        if (path === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        const full = [Reflect.getMetadata(PATH_METADATA, controller) as string, path]
          .filter((part) => part && part !== '/')
          .join('/');
        found.push({
          route: `${method} /${full}`,
          handlerName: `${controller.name}.${name}`,
          targets: [handler as () => void, controller],
        });
      }
    }
  }
  return found;
}

import { CanActivate, Injectable, NestInterceptor, PipeTransform, type Type } from '@nestjs/common';
import {
  CUSTOM_ROUTE_ARGS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ApplicationConfig, ModulesContainer } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { Request, Response } from 'express';
import { from, isObservable, lastValueFrom, mergeMap, Observable } from 'rxjs';
import { AppError } from '../http/errors/error-codes';

/** A REST route's handler, named by its controller class and method. */
export interface RouteHandler {
  controller: Type<object>;
  method: string;
}

/** What a REST request to the route would carry: path parameters, query string and JSON body. */
export interface RouteInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

interface ParamMetadata {
  index: number;
  data?: string;
  pipes?: (PipeTransform | Type<PipeTransform>)[];
  factory?: (data: unknown, context: ExecutionContextHost) => unknown;
}

const PARAM_TYPES: Partial<Record<number, 'body' | 'query' | 'param'>> = {
  [RouteParamtypes.BODY]: 'body',
  [RouteParamtypes.QUERY]: 'query',
  [RouteParamtypes.PARAM]: 'param',
};

/**
 * Runs one operation through a REST route exactly as Nest's router would, without HTTP: the
 * application's global guards in their order (key, rate limit, scope, project, flag, input),
 * the route's interceptors, its parameters' pipes (the global validation pipe, then the
 * parameter's own), then the controller method itself. The route's decorators are the only
 * description of its rules, so an operation reached another way (the MCP endpoint) can never be
 * checked more loosely than the route it points at.
 *
 * The request is a copy of the real one (the client's address, the key header) carrying the
 * operation's own params, query and body; the real response receives what guards set on it
 * (the rate-limit headers).
 */
@Injectable()
export class RouteRulesRunner {
  private readonly instances = new Map<Type<unknown>, unknown>();

  constructor(
    private readonly appConfig: ApplicationConfig,
    private readonly modules: ModulesContainer,
  ) {}

  async run(
    route: RouteHandler,
    real: Request,
    response: Response,
    input: RouteInput,
  ): Promise<unknown> {
    const { controller, method } = route;
    const handler = (controller.prototype as Record<string, unknown>)[method];
    if (typeof handler !== 'function') throw new Error(`${controller.name}.${method} is no route`);
    const request = operationRequest(real, input);
    const context = new ExecutionContextHost(
      [request, response, () => undefined],
      controller,
      handler,
    );
    context.setType('http');

    // Route- or controller-level guards are not part of this service's design; refuse rather
    // than skip one.
    if (metadataList(GUARDS_METADATA, handler, controller).length > 0)
      throw new Error(`${controller.name}.${method} has guards of its own`);
    for (const guard of this.appConfig.getGlobalGuards() as CanActivate[]) {
      const allowed = await settle(guard.canActivate(context));
      if (!allowed) throw new AppError('forbidden', 'Forbidden resource');
    }

    const instance = this.controllerInstance(controller);
    const invoke = async (): Promise<unknown> => {
      const args = await this.resolveArguments(context, controller, method, handler);
      return settle((handler as (...a: unknown[]) => unknown).apply(instance, args));
    };
    const interceptors = [
      ...(this.appConfig.getGlobalInterceptors() as NestInterceptor[]),
      ...metadataList<NestInterceptor | Type<NestInterceptor>>(
        INTERCEPTORS_METADATA,
        controller,
        handler,
      ).map((i) => this.injectable(i)),
    ];
    const chain = interceptors.reduceRight<() => Observable<unknown>>(
      (next, interceptor) => () =>
        from(Promise.resolve(interceptor.intercept(context, { handle: next }))).pipe(
          mergeMap((inner) => inner),
        ),
      () => from(invoke()),
    );
    return lastValueFrom(chain(), { defaultValue: undefined });
  }

  /** The handler's arguments, each through the pipes Nest's router would apply, in its order. */
  private async resolveArguments(
    context: ExecutionContextHost,
    controller: Type<object>,
    method: string,
    handler: object,
  ): Promise<unknown[]> {
    const declared = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<
      string,
      ParamMetadata
    >;
    const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, method) ??
      []) as unknown[];
    const request = context.switchToHttp().getRequest<Request>();
    const shared = [
      ...this.appConfig.getGlobalPipes(),
      ...metadataList<PipeTransform | Type<PipeTransform>>(PIPES_METADATA, controller, handler).map(
        (p) => this.injectable(p),
      ),
    ];
    const args: unknown[] = [];
    for (const [key, meta] of Object.entries(declared)) {
      const typeKey = key.slice(0, key.lastIndexOf(':'));
      let value: unknown;
      let type: 'body' | 'query' | 'param' | 'custom';
      if (typeKey.includes(CUSTOM_ROUTE_ARGS_METADATA) && meta.factory) {
        type = 'custom';
        value = meta.factory(meta.data, context);
      } else {
        const known = PARAM_TYPES[Number(typeKey)];
        if (!known) throw new Error(`Parameter kind ${typeKey} cannot be given without HTTP`);
        type = known;
        const source = type === 'param' ? request.params : request[type];
        value = meta.data === undefined ? source : (source as Record<string, unknown>)?.[meta.data];
      }
      const pipes = [...shared, ...(meta.pipes ?? []).map((p) => this.injectable(p))];
      for (const pipe of pipes)
        value = await pipe.transform(value, {
          type,
          metatype: types[meta.index] as Type<unknown> | undefined,
          data: meta.data,
        });
      args[meta.index] = value;
    }
    return args;
  }

  private controllerInstance(controller: Type<object>): object {
    for (const module of this.modules.values()) {
      const wrapper = module.controllers.get(controller);
      if (wrapper?.instance) return wrapper.instance;
    }
    throw new Error(`${controller.name} is not registered`);
  }

  /** The instance Nest created for an interceptor or pipe named by its class. */
  private injectable<T>(candidate: T | Type<T>): T {
    if (typeof candidate !== 'function') return candidate;
    const type = candidate as Type<T>;
    const known = this.instances.get(type);
    if (known) return known as T;
    for (const module of this.modules.values()) {
      const wrapper = module.injectables.get(type) ?? module.providers.get(type);
      if (wrapper?.instance) {
        this.instances.set(type, wrapper.instance);
        return wrapper.instance as T;
      }
    }
    throw new Error(`No instance of ${type.name}`);
  }
}

/** A request of its own for one operation: the real one's connection and key, nothing else. */
function operationRequest(real: Request, input: RouteInput): Request {
  const request = Object.create(real) as Request & Record<string, unknown>;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (real.headers.authorization !== undefined) headers.authorization = real.headers.authorization;
  const own: Record<string, unknown> = {
    headers,
    params: input.params,
    query: input.query,
    body: input.body,
    principal: undefined,
    projectAccess: undefined,
    heldBodyError: undefined,
  };
  // Own properties, shadowing Express's getters (query) on the prototype chain.
  for (const [name, value] of Object.entries(own))
    Object.defineProperty(request, name, { value, writable: true, enumerable: true });
  return request;
}

/** Decorator metadata lists of the class and then the method, as Nest reads them. */
function metadataList<T>(key: string, ...targets: object[]): T[] {
  return targets.flatMap((target) => (Reflect.getMetadata(key, target) ?? []) as T[]);
}

async function settle<T>(value: T | Promise<T> | Observable<T>): Promise<T> {
  return isObservable(value) ? lastValueFrom(value) : value;
}

import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { ReflectableDecorator } from '@nestjs/core/services/reflector.service';

type PerKey = Map<unknown, unknown>;

/** Handler → controller class → metadata key → value. Decorators run once, at class definition. */
const cache = new WeakMap<object, WeakMap<object, PerKey>>();

/**
 * `reflector.getAllAndOverride(key, [handler, class])`, read once per route and remembered: the
 * global guards (D5) ask for up to a dozen keys on every request, and each read walks
 * reflect-metadata's prototype chain for both targets. Route metadata never changes after start.
 */
export function routeMetadata<TParam, TTransformed = TParam>(
  reflector: Reflector,
  key: ReflectableDecorator<TParam, TTransformed>,
  context: ExecutionContext,
): TTransformed | undefined;
export function routeMetadata<T>(
  reflector: Reflector,
  key: string,
  context: ExecutionContext,
): T | undefined;
export function routeMetadata(
  reflector: Reflector,
  key: string | ReflectableDecorator<never, unknown>,
  context: ExecutionContext,
): unknown {
  const handler = context.getHandler();
  const controller = context.getClass();
  let byClass = cache.get(handler);
  if (byClass === undefined) {
    byClass = new WeakMap();
    cache.set(handler, byClass);
  }
  let values = byClass.get(controller);
  if (values === undefined) {
    values = new Map();
    byClass.set(controller, values);
  }
  if (values.has(key)) return values.get(key);
  const value: unknown = reflector.getAllAndOverride(key as string, [handler, controller]);
  values.set(key, value);
  return value;
}

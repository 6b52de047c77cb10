import type { Type } from '@nestjs/common';
import { RequestInputGuard } from '../http/input/request-input.guard';
import { ApiKeyGuard } from './api-key.guard';
import { PermissionGuard } from './permission.guard';
import { RateLimitGuard } from './rate-limit.guard';
import { ScopeGuard } from './scope.guard';
import { SessionGuard } from './session.guard';

/** Registered as global guards in this order (docs/api-rules.md#order-of-checks). */
export const ACCESS_GUARDS: readonly Type[] = [
  ApiKeyGuard,
  SessionGuard,
  RateLimitGuard,
  ScopeGuard,
  PermissionGuard,
  RequestInputGuard,
];

import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { bearerToken } from '../../domains/api-keys/api-key-format';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { AppError } from '../../http/errors/error-codes';

/** Compared in constant time. */
export function isMetricsToken(config: AppConfig, presented: string | null): boolean {
  const expected = config.ops.metricsToken;
  if (expected === null || presented === null) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Bearer METRICS_TOKEN or 401; without a configured token the route does not exist (404). */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  constructor(@InjectConfig() private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.config.ops.metricsToken === null) throw new AppError('not_found', 'Not found');
    const request = context.switchToHttp().getRequest<Request>();
    if (!isMetricsToken(this.config, bearerToken(request.headers.authorization)))
      throw new AppError('unauthorized', 'A valid metrics token is required');
    return true;
  }
}

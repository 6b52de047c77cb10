import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { StorageUnavailableError } from '../../infrastructure/storage/storage-driver';
import { AppError, errorBody } from './error-codes';
import { isOutage, serviceUnavailable } from './outage';

const HTTP_STATUS_CODES: Record<number, AppError['code']> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limit_exceeded',
  503: 'service_unavailable',
};

/** Seconds a client waits after a 503: outages heal within seconds, never a hang. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_S = 5;

/** Errors that Express middleware (body parser, multer) raises before Nest's handlers run. */
interface MiddlewareError {
  type?: string;
  status?: number;
  code?: string;
}

/** Retry-After of a 503 while media storage is away. */
const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * Turns anything thrown into `{ error: { code, message } }`; unknown errors become a bare 500.
 * Unknown errors and outages are logged to `logger`; without one (a caller that only needs the
 * status and rethrows to the filter, which logs) nothing is logged.
 */
export function toAppError(exception: unknown, logger?: Logger, requestId?: string): AppError {
  if (exception instanceof AppError) return exception;
  const middleware = exception as MiddlewareError;
  if (middleware?.type === 'entity.parse.failed')
    return new AppError('invalid_json', 'Request body is not valid JSON');
  if (middleware?.type === 'entity.too.large')
    return new AppError('payload_too_large', 'Request body is too large');
  if (middleware?.type === 'encoding.unsupported' || middleware?.type === 'charset.unsupported') {
    return new AppError('unsupported_media_type', 'Unsupported request body encoding');
  }
  if (exception instanceof StorageUnavailableError) {
    logger?.warn(exception.message);
    return new AppError(
      'service_unavailable',
      'Media storage is unavailable; retry later',
      undefined,
      { 'Retry-After': String(STORAGE_RETRY_AFTER_SECONDS) },
    );
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const code = HTTP_STATUS_CODES[status];
    if (code) {
      const message = status === 404 ? 'Route not found' : exception.message;
      return new AppError(code, message);
    }
  }
  if (isOutage(exception)) {
    const reason = exception instanceof Error ? exception.message : String(exception);
    logger?.warn(`${requestId ? `[request ${requestId}] ` : ''}dependency unavailable: ${reason}`);
    return serviceUnavailable();
  }
  const detail =
    exception instanceof Error ? (exception.stack ?? exception.message) : String(exception);
  logger?.error(requestId ? `[request ${requestId}] ${detail}` : detail);
  return new AppError('internal_error', 'Internal server error');
}

export function sendError(res: Response, error: AppError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  // Every 503 says when to come back.
  if (error.status === 503 && !res.hasHeader('Retry-After'))
    res.setHeader('Retry-After', String(SERVICE_UNAVAILABLE_RETRY_AFTER_S));
  res.status(error.status).json(errorBody(error));
}

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const http = host.switchToHttp();
    const requestId = http.getRequest<{ id?: string }>().id;
    sendError(http.getResponse<Response>(), toAppError(exception, this.logger, requestId));
  }
}

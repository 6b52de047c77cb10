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

/** Outages heal within seconds. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_S = 5;

/** Raised by Express middleware (body parser, multer) before Nest's handlers run. */
interface MiddlewareError {
  type?: string;
  status?: number;
  code?: string;
}

const STORAGE_RETRY_AFTER_SECONDS = 5;

/** Unknown errors become a bare 500; they and outages are logged only when `logger` is given. */
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

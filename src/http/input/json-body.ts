import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { raw } from 'express';
import { AppError } from '../errors/error-codes';
import { carriesIdempotencyKey } from '../idempotency/idempotency-header';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth';

export const MAX_JSON_BODY_BYTES = 1024 * 1024;

export interface BodyRequest extends Request {
  /** Held for RequestInputGuard, the last check, so access is decided before the body is judged. */
  bodyParseError?: AppError;
  /** Of the raw bytes, only with an Idempotency-Key: the fingerprint hashes what was sent. */
  rawBodySha256?: string;
}

const readJsonBytes = raw({ type: 'application/json', limit: MAX_JSON_BODY_BYTES });

/** Never answers itself: errors wait for RequestInputGuard (docs/api-rules.md#order-of-checks). */
export function jsonBody(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    readJsonBytes(req, res, (error?: unknown) => {
      const request = req as BodyRequest;
      if (error) {
        request.body = undefined;
        request.bodyParseError = bodyReadError(error);
        return next();
      }
      if (!Buffer.isBuffer(request.body)) return next();
      const bytes = request.body;
      request.body = undefined;
      // No bytes is no body, as when no Content-Length came: a route that takes one refuses it.
      if (bytes.length === 0) return next();
      if (carriesIdempotencyKey(req))
        request.rawBodySha256 = createHash('sha256').update(bytes).digest('hex');
      const parsed = parseJsonObject(bytes, req.headers['content-type']);
      if (parsed instanceof AppError) request.bodyParseError = parsed;
      else request.body = parsed;
      next();
    });
  };
}

const UTF8 = /^utf-?8$/i;

export function parseJsonObject(
  bytes: Buffer,
  contentType: string | undefined,
): Record<string, unknown> | AppError {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  if (charset !== undefined && !UTF8.test(charset))
    return new AppError('unsupported_media_type', 'Unsupported request body encoding');
  const text = bytes.toString('utf8');
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH))
    return new AppError(
      'invalid_json',
      `Request body is nested deeper than ${MAX_JSON_DEPTH} levels`,
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return new AppError('invalid_json', 'Request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return new AppError('validation_failed', 'Request body must be a JSON object');
  return value as Record<string, unknown>;
}

function bodyReadError(error: unknown): AppError {
  const type = (error as { type?: string })?.type;
  if (type === 'entity.too.large')
    return new AppError('payload_too_large', 'Request body is too large');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported')
    return new AppError('unsupported_media_type', 'Unsupported request body encoding');
  return new AppError('invalid_json', 'Request body could not be read');
}

import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { catchError, from, mergeMap, type Observable, of } from 'rxjs';
import type { HeraldRequest } from '../../access/principal';
import { toAppError } from '../errors/all-exceptions.filter';
import { errorBody } from '../errors/error-codes';
import { validationFailed } from '../errors/validation';
import { IDEMPOTENCY_HEADER } from './idempotency-header';
import {
  EMPTY_BODY_SHA256,
  IdempotencyService,
  isValidIdempotencyKey,
  requestFingerprint,
} from './idempotency.service';

export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** What a route's body reader may leave for the idempotency check. */
export interface IdempotentRequest extends HeraldRequest {
  /**
   * Undoes what reading the body stored (a multipart upload's file), for a request that is not
   * run: a replay, a reused key, a key in use.
   */
  discardBody?: () => Promise<void>;
}

/**
 * Idempotency-Key on a public POST. An interceptor runs after every guard, so key, rate
 * limit, scope, project and flag are checked first (and every request counts against the limit).
 * The fingerprint hashes method, path and the body bytes as received (`rawBodySha256`, set by the
 * JSON body parser when the request carries a key or, for multipart, by the upload's reader,
 * which must run before this).
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Errors');

  constructor(private readonly idempotency: IdempotencyService) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const req = http.getRequest<IdempotentRequest>();
    const res = http.getResponse<Response>();
    const header = req.headers[IDEMPOTENCY_HEADER.toLowerCase()];
    const apiKeyId = req.principal?.apiKey?.id;
    if (header === undefined || apiKeyId === undefined) return next.handle();
    if (!isValidIdempotencyKey(header)) {
      await req.discardBody?.();
      throw validationFailed([
        { field: IDEMPOTENCY_HEADER, message: 'must be 1 to 255 printable ASCII characters' },
      ]);
    }
    const fingerprint = requestFingerprint(
      req.method,
      req.originalUrl,
      req.rawBodySha256 ?? EMPTY_BODY_SHA256,
    );
    const outcome = await this.idempotency
      .begin(apiKeyId, header, fingerprint)
      .catch(async (error: unknown) => {
        await req.discardBody?.();
        throw error;
      });
    if (outcome.kind === 'replay') {
      await req.discardBody?.();
      res.status(outcome.status);
      res.setHeader(REPLAYED_HEADER, 'true');
      return of(outcome.body);
    }
    // Nest has set the route's success status before the interceptors run.
    return next.handle().pipe(
      catchError((error: unknown) => from(this.keepFailure(apiKeyId, header, fingerprint, error))),
      mergeMap((body) =>
        from(this.keepSuccess(apiKeyId, header, fingerprint, res.statusCode, body)),
      ),
    );
  }

  /** A 4xx is kept and answered again; a 5xx frees the key, so that the retry runs anew. */
  private async keepFailure(
    apiKeyId: number,
    key: string,
    fingerprint: string,
    error: unknown,
  ): Promise<never> {
    // Only the status matters here: the error goes on to the exception filter, which logs it once.
    const answer = toAppError(error);
    try {
      if (answer.status < 500)
        await this.idempotency.finish(apiKeyId, key, fingerprint, answer.status, errorBody(answer));
      else await this.idempotency.release(apiKeyId, key, fingerprint);
    } catch (failure) {
      this.logger.warn(`Idempotency-Key outcome not kept: ${(failure as Error).message}`);
    }
    throw error;
  }

  /**
   * The work is done: its answer goes out even when keeping it fails. The key then stays in use
   * until it expires: a retry is refused (409) rather than run twice.
   */
  private async keepSuccess(
    apiKeyId: number,
    key: string,
    fingerprint: string,
    status: number,
    body: unknown,
  ): Promise<unknown> {
    try {
      await this.idempotency.finish(apiKeyId, key, fingerprint, status, body);
    } catch (failure) {
      this.logger.warn(`Idempotency-Key answer not kept: ${(failure as Error).message}`);
    }
    return body;
  }
}

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

export interface IdempotentRequest extends HeraldRequest {
  /** Undoes what reading the body stored (an upload's file) for a request that is not run. */
  discardBody?: () => Promise<void>;
}

/** After every guard, so each request counts; the fingerprint hashes the body bytes as received. */
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

  /** The answer goes out even if keeping it fails; a retry is then refused (409), never rerun. */
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

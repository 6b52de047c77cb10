import {
  CallHandler,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  NestInterceptor,
} from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import multer, { MulterError, StorageEngine } from 'multer';
import type { Observable } from 'rxjs';
import { AppError } from '../../http/errors/error-codes';
import { createValidationPipe, validationFailed } from '../../http/errors/validation';
import { carriesIdempotencyKey } from '../../http/idempotency/idempotency-header';
import type { IdempotentRequest } from '../../http/idempotency/idempotency.interceptor';
import { UploadByUrlDto, UploadFieldsDto } from './upload-media.dto';
import { MAX_ALT_TEXT_LENGTH } from './media-asset.entity';
import { MAX_MEDIA_BYTES } from './media-kinds';
import { fileTooLarge } from './media-sniffer';
import { MediaService, MediaUploadInput, StoredMediaFile } from './media.service';

export const UPLOAD_FIELD = 'files';
export const MAX_FILES_PER_UPLOAD = 1;

/** multer drains a refused body; past a file's limit plus this, it is answered and cut off. */
const MULTIPART_FRAMING_BYTES = 1024 * 1024;
const MAX_MULTIPART_BODY_BYTES = MAX_MEDIA_BYTES + MULTIPART_FRAMING_BYTES;
const CUT_OFF_LINGER_MS = 2_000;

interface UploadRequest extends IdempotentRequest {
  mediaUpload?: MediaUploadInput;
  file?: Express.Multer.File & { stored?: StoredMediaFile };
}

/** Our storage failed, not the client: answered 500. */
class UploadStorageFailure extends Error {
  constructor(override readonly cause: unknown) {
    super('Storing the uploaded file failed');
  }
}

/** After the guards: multipart streams to storage, JSON is `UploadByUrlDto`, anything else 415. */
const JSON_TYPE = /^application\/json\s*(?:;|$)/i;

@Injectable()
export class MediaUploadInterceptor implements NestInterceptor {
  private readonly validation = createValidationPipe();

  constructor(private readonly media: MediaService) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const req = http.getRequest<UploadRequest>();
    if (req.is('multipart/form-data')) {
      req.mediaUpload = await this.receiveFile(req, http.getResponse<Response>());
    } else if (req.is('application/json') || JSON_TYPE.test(req.headers['content-type'] ?? '')) {
      // req.is() answers null for a request without a body: that is a JSON request without one.
      req.mediaUpload = await this.readUrlBody(req.body);
    } else {
      throw new AppError(
        'unsupported_media_type',
        'Send multipart/form-data with one file in the field `files`, or application/json with `url`',
      );
    }
    return next.handle();
  }

  private async receiveFile(req: UploadRequest, res: Response): Promise<MediaUploadInput> {
    const projectId = req.projectAccess?.project.id;
    if (projectId === undefined) throw new Error('Media upload without a resolved project');
    let refusal: AppError | undefined;
    const receive = multer({
      storage: new MediaStorageEngine(this.media, projectId, (error) => (refusal ??= error)),
      limits: {
        files: MAX_FILES_PER_UPLOAD,
        fileSize: MAX_MEDIA_BYTES,
        fields: 1,
        // Four UTF-8 bytes per character at most, and one more to tell it is over.
        fieldSize: MAX_ALT_TEXT_LENGTH * 4 + 1,
      },
      defParamCharset: 'utf8',
    }).single(UPLOAD_FIELD);
    try {
      // A body going past any acceptable size is answered without waiting for its end.
      await new Promise<void>((resolve, reject) => {
        const hash = carriesIdempotencyKey(req) ? createHash('sha256') : undefined;
        const release = cutOffPast(
          req,
          res,
          MAX_MULTIPART_BODY_BYTES,
          () => reject(refusal ?? bodyTooLarge()),
          (chunk) => hash?.update(chunk),
        );
        receive(req as Request, res, (error?: unknown) => {
          release();
          if (error) return reject(error);
          req.rawBodySha256 = hash?.digest('hex');
          resolve();
        });
      });
    } catch (error) {
      throw multipartError(error);
    }
    const stored = req.file?.stored;
    if (!req.file || !stored) {
      throw new AppError('file_required', 'Attach one file in the multipart field `files`');
    }
    // A request that is not run after all (an Idempotency-Key replay) leaves no file behind.
    req.discardBody = () => this.media.discardFile(stored.storagePath);
    let fields: UploadFieldsDto;
    try {
      fields = (await this.validation.transform(
        { ...(req.body as Record<string, unknown> | undefined) },
        { type: 'body', metatype: UploadFieldsDto },
      )) as UploadFieldsDto;
    } catch (error) {
      await req.discardBody();
      throw error;
    }
    return {
      kind: 'file',
      file: stored,
      filename: req.file.originalname,
      altText: fields.alt_text ?? null,
    };
  }

  private async readUrlBody(body: unknown): Promise<MediaUploadInput> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw validationFailed([{ field: 'body', message: 'must be a JSON object' }]);
    }
    const dto = (await this.validation.transform(body, {
      type: 'body',
      metatype: UploadByUrlDto,
    })) as UploadByUrlDto;
    return { kind: 'url', url: dto.url, filename: dto.filename, altText: dto.alt_text ?? null };
  }
}

export const MediaUpload = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): MediaUploadInput => {
    const upload = ctx.switchToHttp().getRequest<UploadRequest>().mediaUpload;
    if (!upload) throw new Error('MediaUpload used without MediaUploadInterceptor');
    return upload;
  },
);

class MediaStorageEngine implements StorageEngine {
  constructor(
    private readonly media: MediaService,
    private readonly projectId: number,
    /** As soon as it is known (multer answers only at the body's end). */
    private readonly onRefused: (error: AppError) => void,
  ) {}

  _handleFile(
    _req: Request,
    file: Express.Multer.File,
    callback: (error?: unknown, info?: Partial<Express.Multer.File>) => void,
  ): void {
    file.stream.once('limit', () => this.onRefused(fileTooLarge()));
    this.media.storeFile(this.projectId, file.stream).then(
      (stored) =>
        callback(null, { stored, size: stored.sizeBytes } as Partial<Express.Multer.File>),
      (error: unknown) => {
        if (error instanceof AppError) this.onRefused(error);
        callback(error instanceof AppError ? error : new UploadStorageFailure(error));
      },
    );
  }

  _removeFile(
    _req: Request,
    file: Express.Multer.File & { stored?: StoredMediaFile },
    callback: (error: Error | null) => void,
  ): void {
    if (!file.stored) return callback(null);
    this.media.discardFile(file.stored.storagePath).then(
      () => callback(null),
      (error: Error) => callback(error),
    );
  }
}

/** Past `limit` bytes, answers and closes `CUT_OFF_LINGER_MS` later; returns the stop function. */
function cutOffPast(
  req: Request,
  res: Response,
  limit: number,
  refuse: () => void,
  onChunk: (chunk: Buffer) => void,
): () => void {
  let received = 0;
  const count = (chunk: Buffer) => {
    onChunk(chunk);
    received += chunk.length;
    if (received <= limit) return;
    req.off('data', count);
    res.once('finish', () => setTimeout(() => req.socket.destroy(), CUT_OFF_LINGER_MS).unref());
    refuse();
  };
  req.on('data', count);
  return () => req.off('data', count);
}

function bodyTooLarge(): AppError {
  return new AppError(
    'payload_too_large',
    `A multipart upload carries one file of at most ${MAX_MEDIA_BYTES} bytes (50 MB)`,
  );
}

function multipartError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  if (error instanceof UploadStorageFailure) return error.cause;
  if (error instanceof MulterError) {
    switch (error.code) {
      case 'LIMIT_FILE_SIZE':
        return fileTooLarge();
      case 'LIMIT_FILE_COUNT':
        return tooManyFiles();
      case 'LIMIT_UNEXPECTED_FILE':
        return error.field === UPLOAD_FIELD
          ? tooManyFiles()
          : new AppError(
              'validation_failed',
              `Unexpected file field \`${error.field ?? ''}\`; send the file in \`files\``,
            );
      case 'LIMIT_FIELD_COUNT':
        return new AppError(
          'validation_failed',
          'Only one file in the field `files` is accepted, and `alt_text` beside it',
        );
      case 'LIMIT_FIELD_VALUE':
        return new AppError(
          'validation_failed',
          `alt_text must be at most ${MAX_ALT_TEXT_LENGTH} characters`,
        );
      default:
        return new AppError('validation_failed', `Invalid multipart body: ${error.message}`);
    }
  }
  return new AppError('validation_failed', 'Malformed multipart/form-data body');
}

function tooManyFiles(): AppError {
  return new AppError('too_many_files', 'Upload exactly one file per request');
}

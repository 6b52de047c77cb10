import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Injectable, Logger } from '@nestjs/common';
import { Readable, Transform } from 'node:stream';
import type { AppConfig, S3Config } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { InvalidStoragePathError, isValidStorageKey } from './local-disk.storage';
import { StorageUnavailableError, type StorageDriver, type StoredObject } from './storage-driver';

/** S3's smallest multipart part; a file under it goes up in one PutObject. */
export const S3_PART_SIZE = 5 * 1024 * 1024;
/** Parts in flight at once: memory per upload stays near PART_SIZE × (QUEUE + 1), whatever the file. */
export const S3_UPLOAD_QUEUE = 2;
const CONNECT_TIMEOUT_MS = 5_000;

/** An SDK or socket error, named without the request (which may carry credentials). */
function unavailable(error: unknown): StorageUnavailableError {
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  return new StorageUnavailableError(
    `${e.code ?? e.name ?? 'Error'}${status === undefined ? '' : ` (HTTP ${status})`}`,
  );
}

/** Whether an SDK error means the object is not there. */
function isMissing(error: unknown): boolean {
  // Not any 404: a missing bucket (NoSuchBucket) is the deployment's fault, not the file's.
  return error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey';
}

/**
 * Media in an S3-compatible bucket (D23), at the same storage keys as the local driver. Uploads
 * stream through lib-storage's multipart upload, so memory stays flat; a failed upload is aborted
 * and never completes into an object. Media URLs keep the D10 form: the service streams the object
 * at `/media/<path>`, so the bucket can stay private and unreachable from outside.
 */
@Injectable()
export class S3Storage implements StorageDriver {
  private readonly logger = new Logger(S3Storage.name);
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly publicBase: string;

  constructor(@InjectConfig() config: AppConfig) {
    const s3 = config.s3 as S3Config;
    this.bucket = s3.bucket;
    this.publicBase = `${config.publicBaseUrl}/media/`;
    this.client = new S3Client({
      region: s3.region,
      endpoint: s3.endpoint ?? undefined,
      forcePathStyle: s3.forcePathStyle,
      credentials:
        s3.accessKeyId && s3.secretAccessKey
          ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }
          : undefined,
      // Checksums only where S3 requires them: many S3-compatible stores refuse the newer headers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS },
    });
  }

  async put(path: string, body: Readable, contentType: string): Promise<StoredObject> {
    this.check(path);
    let size = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(null, chunk);
      },
    });
    // The body's own error (client gone, file too large) is what the caller must see.
    let bodyError: Error | undefined;
    body.once('error', (error: Error) => {
      bodyError = error;
      counted.destroy(error);
    });
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: path,
        Body: body.pipe(counted),
        ContentType: contentType,
      },
      partSize: S3_PART_SIZE,
      queueSize: S3_UPLOAD_QUEUE,
      // Aborted below, so that a failed abort cannot hide the error that caused it.
      leavePartsOnError: true,
    });
    try {
      await upload.done();
      return { size };
    } catch (error) {
      body.destroy();
      await this.abort(upload, path);
      throw bodyError ?? unavailable(error);
    }
  }

  async openRead(path: string): Promise<Readable> {
    this.check(path);
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: path }),
      );
      return answer.Body as Readable;
    } catch (error) {
      throw isMissing(error) ? error : unavailable(error);
    }
  }

  async delete(path: string): Promise<void> {
    this.check(path);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: path }));
    } catch (error) {
      if (!isMissing(error)) throw unavailable(error);
    }
  }

  publicUrl(path: string): string {
    return `${this.publicBase}${path}`;
  }

  /** Closes the client's sockets (tests start many apps in one process). */
  onApplicationShutdown(): void {
    this.client.destroy();
  }

  /** Drops the parts of a multipart upload that will never complete. Best effort: logged. */
  private async abort(upload: Upload, path: string): Promise<void> {
    const uploadId = (upload as unknown as { uploadId?: string }).uploadId;
    if (!uploadId) return; // nothing was sent, or one PutObject that failed: no object exists
    try {
      await this.client.send(
        new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: path, UploadId: uploadId }),
      );
    } catch (error) {
      this.logger.warn(
        `Multipart upload of ${path} not aborted (${(error as Error).name}); a bucket lifecycle rule removes its parts`,
      );
    }
  }

  private check(path: string): void {
    if (!isValidStorageKey(path)) throw new InvalidStoragePathError();
  }
}

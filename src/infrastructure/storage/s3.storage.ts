import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { AppConfig, S3Config } from '../config/config';
import { InvalidStoragePathError, isValidStorageKey } from './local-disk.storage';
import { StorageUnavailableError, type StorageDriver, type StoredObject } from './storage-driver';
import { writeChunks } from './write-chunks';

/** S3's smallest multipart part (but the last); a file under it goes up in one PutObject. */
export const S3_PART_SIZE = 5 * 1024 * 1024;
/** Past it, reading the body waits (backpressure to the client). */
export const S3_UPLOAD_QUEUE = 4;
const CONNECT_TIMEOUT_MS = 5_000;
/** Larger than the body's chunks, small enough for memory (docs/performance.md#s3-spool-chunks). */
const SPOOL_WRITE_BYTES = 512 * 1024;
const READ_CHUNK_BYTES = 128 * 1024;

/** Named without the request, which may carry credentials. */
function unavailable(error: unknown): StorageUnavailableError {
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  return new StorageUnavailableError(
    `${e.code ?? e.name ?? 'Error'}${status === undefined ? '' : ` (HTTP ${status})`}`,
  );
}

function isMissing(error: unknown): boolean {
  // Not any 404: a missing bucket (NoSuchBucket) is the deployment's fault, not the file's.
  return error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey';
}

/** S3 needs each part's length first, so parts spool to disk, not memory; unlinked once open. */
class Spool {
  /** Bytes written to the file, not those still batched in memory. */
  size = 0;
  private batch: Buffer[] = [];
  private batchBytes = 0;

  private constructor(private readonly file: FileHandle) {}

  static async open(directory: string): Promise<Spool> {
    const path = join(directory, `herald-upload-${randomBytes(12).toString('hex')}.part`);
    const file = await open(path, 'wx+', 0o600);
    await unlink(path).catch(() => undefined); // best effort: closed below in any case
    return new Spool(file);
  }

  /** Whether the batch is now due (`flush`). */
  hold(chunk: Buffer): boolean {
    this.batch.push(chunk);
    this.batchBytes += chunk.length;
    return this.batchBytes >= SPOOL_WRITE_BYTES;
  }

  async flush(): Promise<void> {
    const chunks = this.batch;
    this.batch = [];
    this.batchBytes = 0;
    this.size += await writeChunks(this.file, chunks, this.size);
  }

  /** Bytes [start, end) as a stream, stopped with the request so nothing reads past `close()`. */
  async send<T>(start: number, end: number, request: (body: Readable) => Promise<T>): Promise<T> {
    // Not fs.ReadStream: destroying one closes the descriptor that the other parts still read.
    const range = Readable.from(this.read(start, end), { objectMode: false });
    try {
      return await request(range);
    } finally {
      range.destroy();
    }
  }

  private async *read(start: number, end: number): AsyncGenerator<Buffer> {
    for (let at = start; at < end;) {
      const want = Math.min(READ_CHUNK_BYTES, end - at);
      const { bytesRead, buffer } = await this.file.read(Buffer.allocUnsafe(want), 0, want, at);
      if (bytesRead === 0) throw new Error('The spooled upload is shorter than expected');
      at += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  }

  close(): Promise<void> {
    return this.file.close();
  }
}

interface MultipartState {
  uploadId?: string;
  creating?: Promise<string>;
  parts: CompletedPart[];
  inFlight: Set<Promise<void>>;
  failure?: unknown;
}

/** Streams uploads part by part; served at `/media/<path>`, so the bucket stays private. */
@Injectable()
export class S3Storage implements StorageDriver {
  private readonly logger = new Logger(S3Storage.name);
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly publicBase: string;

  constructor(
    config: Pick<AppConfig, 'publicBaseUrl' | 's3'>,
    private readonly spoolDirectory: string = tmpdir(),
  ) {
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
      // Failures reach the caller as errors; the SDK's own console lines are debug only.
      logger: {
        trace: () => undefined,
        debug: (...parts: unknown[]) => this.logger.debug(parts.map(String).join(' ')),
        info: (...parts: unknown[]) => this.logger.debug(parts.map(String).join(' ')),
        warn: (...parts: unknown[]) => this.logger.debug(parts.map(String).join(' ')),
        error: (...parts: unknown[]) => this.logger.debug(parts.map(String).join(' ')),
      },
    });
  }

  async put(path: string, body: Readable, contentType: string): Promise<StoredObject> {
    this.check(path);
    const spool = await Spool.open(this.spoolDirectory).catch((error: unknown) => {
      body.destroy();
      throw error;
    });
    const upload: MultipartState = { parts: [], inFlight: new Set() };
    let sent = 0; // bytes handed to parts so far
    const sendWholeParts = () => {
      while (spool.size - sent >= S3_PART_SIZE) {
        this.sendPart(upload, path, contentType, spool, sent, sent + S3_PART_SIZE);
        sent += S3_PART_SIZE;
      }
    };
    try {
      try {
        for await (const chunk of body) {
          if (!spool.hold(chunk as Buffer)) continue;
          await spool.flush();
          sendWholeParts();
          while (upload.inFlight.size >= S3_UPLOAD_QUEUE && upload.failure === undefined) {
            await Promise.race(upload.inFlight);
          }
          if (upload.failure !== undefined) throw upload.failure;
        }
        await spool.flush();
        sendWholeParts();
      } catch (error) {
        body.destroy();
        throw error === upload.failure ? unavailable(error) : error;
      }
      if (upload.creating === undefined) {
        await spool
          .send(0, spool.size, (Body) =>
            this.client.send(
              new PutObjectCommand({
                Bucket: this.bucket,
                Key: path,
                Body,
                ContentLength: spool.size,
                ContentType: contentType,
              }),
            ),
          )
          .catch((error: unknown) => {
            throw unavailable(error);
          });
        return { size: spool.size };
      }
      if (spool.size > sent) this.sendPart(upload, path, contentType, spool, sent, spool.size);
      await Promise.all(upload.inFlight);
      if (upload.failure !== undefined) throw unavailable(upload.failure);
      await this.client
        .send(
          new CompleteMultipartUploadCommand({
            Bucket: this.bucket,
            Key: path,
            UploadId: upload.uploadId,
            MultipartUpload: { Parts: upload.parts },
          }),
        )
        .catch((error: unknown) => {
          throw unavailable(error);
        });
      return { size: spool.size };
    } catch (error) {
      await this.abort(upload, path);
      throw error;
    } finally {
      await spool.close();
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

  /** Tests start many apps in one process. */
  onApplicationShutdown(): void {
    this.client.destroy();
  }

  /** Never rejects: a failure is kept in `upload.failure` for `put` to raise. */
  private sendPart(
    upload: MultipartState,
    path: string,
    contentType: string,
    spool: Spool,
    start: number,
    end: number,
  ): void {
    const partNumber = start / S3_PART_SIZE + 1;
    upload.creating ??= this.client
      .send(
        new CreateMultipartUploadCommand({
          Bucket: this.bucket,
          Key: path,
          ContentType: contentType,
        }),
      )
      .then(({ UploadId }) => (upload.uploadId = UploadId as string));
    const sending: Promise<void> = upload.creating
      .then((uploadId) =>
        spool.send(start, end, (Body) =>
          this.client.send(
            new UploadPartCommand({
              Bucket: this.bucket,
              Key: path,
              UploadId: uploadId,
              PartNumber: partNumber,
              Body,
              ContentLength: end - start,
            }),
          ),
        ),
      )
      .then(
        ({ ETag }) => {
          upload.parts[partNumber - 1] = { PartNumber: partNumber, ETag };
        },
        (error: unknown) => {
          upload.failure ??= error;
        },
      )
      .finally(() => upload.inFlight.delete(sending));
    upload.inFlight.add(sending);
  }

  /** Once no part is in flight (a part landing after the abort would linger); best effort. */
  private async abort(upload: MultipartState, path: string): Promise<void> {
    await Promise.all(upload.inFlight);
    await upload.creating?.catch(() => undefined);
    if (upload.uploadId === undefined) return; // nothing started: no object, no parts
    try {
      await this.client.send(
        new AbortMultipartUploadCommand({
          Bucket: this.bucket,
          Key: path,
          UploadId: upload.uploadId,
        }),
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

/**
 * A lean S3-protocol server for the upload benchmark only: it stands in for a bucket on another
 * machine, whose CPU is not Herald's, so it should cost as near nothing as a network peer does.
 * It speaks the calls the S3 driver and the benchmark make (PutObject, CreateMultipartUpload,
 * UploadPart, CompleteMultipartUpload, AbortMultipartUpload, GetObject, DeleteObject,
 * ListObjectsV2) on one path-style bucket. Every body is piped to a file of its own and never
 * hashed (ETags are random, which S3 allows: they are opaque to clients); a completed multipart
 * upload keeps its part files and GetObject streams them in order, so completion neither reads nor
 * rewrites a byte. Signatures are not checked. What it stores is checked by the benchmark, which
 * reads every object back and compares its size and SHA-256 with what was sent.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { writeChunks } from '../src/infrastructure/storage/write-chunks';
import { s3Env, TEST_BUCKET } from '../test/support/s3-server';

/** S3's smallest part but the last (EntityTooSmall below it). */
const MIN_PART_BYTES = 5 * 1024 * 1024;
const WRITE_BYTES = 1024 * 1024;

interface Part {
  path: string;
  size: number;
  etag: string;
}

interface StoredObject {
  directory: string;
  parts: Part[];
  size: number;
  etag: string;
  contentType: string;
  modified: Date;
}

interface PendingUpload {
  key: string;
  directory: string;
  contentType: string;
  parts: Map<number, Part>;
}

class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const etag = () => `"${randomBytes(16).toString('hex')}"`;
const xmlEscape = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
const xmlUnescape = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&amp;/g, '&');

export class LeanS3Server {
  private server?: Server;
  private directory = '';
  private readonly objects = new Map<string, StoredObject>();
  private readonly uploads = new Map<string, PendingUpload>();
  endpoint = '';

  async start(): Promise<this> {
    this.directory = await mkdtemp(join(tmpdir(), 'herald-s3-lean-'));
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        const e =
          error instanceof S3Error ? error : new S3Error(500, 'InternalError', String(error));
        if (res.headersSent) res.destroy();
        else answerError(res, e);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.endpoint = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
    await rm(this.directory, { recursive: true, force: true });
  }

  env(): Record<string, string> {
    return s3Env(this.endpoint);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const [, bucket, ...rest] = url.pathname.split('/');
    if (bucket !== TEST_BUCKET) throw new S3Error(404, 'NoSuchBucket', 'No such bucket');
    const key = decodeURIComponent(rest.join('/'));
    const query = url.searchParams;
    const uploadId = query.get('uploadId');
    if (req.headers['content-encoding']?.includes('aws-chunked'))
      throw new S3Error(501, 'NotImplemented', 'aws-chunked bodies are not spoken here');

    if (key === '' && req.method === 'GET' && query.get('list-type') === '2') return this.list(res);
    if (key === '') throw new S3Error(501, 'NotImplemented', 'Bucket calls other than listing');
    switch (req.method) {
      case 'PUT':
        if (uploadId !== null) return this.uploadPart(req, res, uploadId, query.get('partNumber'));
        return this.putObject(req, res, key);
      case 'POST':
        if (query.has('uploads')) return this.createUpload(req, res, key);
        if (uploadId !== null) return this.completeUpload(req, res, key, uploadId);
        break;
      case 'DELETE':
        if (uploadId !== null) return this.abortUpload(res, uploadId);
        return this.deleteObject(res, key);
      case 'GET':
        return this.getObject(res, key);
    }
    throw new S3Error(501, 'NotImplemented', `${req.method} ${url.search} is not spoken here`);
  }

  private async putObject(req: IncomingMessage, res: ServerResponse, key: string): Promise<void> {
    const directory = await this.newDirectory();
    const part = await receive(req, join(directory, '1')).catch(async (error: unknown) => {
      await rm(directory, { recursive: true, force: true });
      throw error;
    });
    this.store(key, {
      directory,
      parts: [part],
      size: part.size,
      etag: part.etag,
      contentType: req.headers['content-type'] ?? 'binary/octet-stream',
      modified: new Date(),
    });
    res.writeHead(200, { ETag: part.etag }).end();
  }

  private async createUpload(
    req: IncomingMessage,
    res: ServerResponse,
    key: string,
  ): Promise<void> {
    req.resume();
    const id = randomBytes(16).toString('hex');
    this.uploads.set(id, {
      key,
      directory: await this.newDirectory(),
      contentType: req.headers['content-type'] ?? 'binary/octet-stream',
      parts: new Map(),
    });
    answerXml(
      res,
      `<InitiateMultipartUploadResult><Bucket>${TEST_BUCKET}</Bucket><Key>${xmlEscape(key)}</Key>` +
        `<UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
    );
  }

  private async uploadPart(
    req: IncomingMessage,
    res: ServerResponse,
    uploadId: string,
    partNumberText: string | null,
  ): Promise<void> {
    const partNumber = Number(partNumberText);
    if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10_000)
      throw new S3Error(400, 'InvalidArgument', 'Part number must be an integer in 1..10000');
    const upload = this.pending(uploadId);
    const part = await receive(
      req,
      join(upload.directory, `${partNumber}-${randomBytes(4).toString('hex')}`),
    );
    if (this.uploads.get(uploadId) !== upload) {
      await unlink(part.path).catch(() => undefined);
      throw new S3Error(404, 'NoSuchUpload', 'The upload was aborted meanwhile');
    }
    const replaced = upload.parts.get(partNumber);
    upload.parts.set(partNumber, part);
    if (replaced) await unlink(replaced.path);
    res.writeHead(200, { ETag: part.etag }).end();
  }

  private async completeUpload(
    req: IncomingMessage,
    res: ServerResponse,
    key: string,
    uploadId: string,
  ): Promise<void> {
    const upload = this.pending(uploadId);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const listed = [
      ...Buffer.concat(chunks)
        .toString('utf8')
        .matchAll(/<Part>\s*(.*?)\s*<\/Part>/gs),
    ].map(([, part]) => ({
      number: Number(/<PartNumber>(\d+)<\/PartNumber>/.exec(part)?.[1]),
      etag: xmlUnescape(/<ETag>(.*?)<\/ETag>/s.exec(part)?.[1] ?? ''),
    }));
    if (listed.length === 0) throw new S3Error(400, 'MalformedXML', 'No parts listed');
    const parts = listed.map(({ number, etag: tag }, i) => {
      const part = upload.parts.get(number);
      if (!part || part.etag !== tag) throw new S3Error(400, 'InvalidPart', `Part ${number}`);
      if (i > 0 && number <= listed[i - 1].number)
        throw new S3Error(400, 'InvalidPartOrder', 'Parts must be listed in ascending order');
      if (i < listed.length - 1 && part.size < MIN_PART_BYTES)
        throw new S3Error(400, 'EntityTooSmall', `Part ${number} is under 5 MB`);
      return part;
    });
    this.uploads.delete(uploadId);
    const kept = new Set(parts);
    await Promise.all(
      [...upload.parts.values()].filter((p) => !kept.has(p)).map((p) => unlink(p.path)),
    );
    const tag = `"${randomBytes(16).toString('hex')}-${parts.length}"`;
    this.store(key, {
      directory: upload.directory,
      parts,
      size: parts.reduce((sum, p) => sum + p.size, 0),
      etag: tag,
      contentType: upload.contentType,
      modified: new Date(),
    });
    answerXml(
      res,
      `<CompleteMultipartUploadResult><Location>${this.endpoint}/${TEST_BUCKET}/${xmlEscape(key)}` +
        `</Location><Bucket>${TEST_BUCKET}</Bucket><Key>${xmlEscape(key)}</Key>` +
        `<ETag>${xmlEscape(tag)}</ETag></CompleteMultipartUploadResult>`,
    );
  }

  private async abortUpload(res: ServerResponse, uploadId: string): Promise<void> {
    const upload = this.pending(uploadId);
    this.uploads.delete(uploadId);
    await rm(upload.directory, { recursive: true, force: true });
    res.writeHead(204).end();
  }

  private async getObject(res: ServerResponse, key: string): Promise<void> {
    const object = this.objects.get(key);
    if (!object) throw new S3Error(404, 'NoSuchKey', 'The specified key does not exist.');
    res.writeHead(200, {
      'Content-Length': object.size,
      'Content-Type': object.contentType,
      ETag: object.etag,
      'Last-Modified': object.modified.toUTCString(),
    });
    await pipeline(async function* () {
      for (const part of object.parts)
        yield* createReadStream(part.path, { highWaterMark: 1024 * 1024 });
    }, res);
  }

  private async deleteObject(res: ServerResponse, key: string): Promise<void> {
    const object = this.objects.get(key);
    this.objects.delete(key);
    if (object) await rm(object.directory, { recursive: true, force: true });
    res.writeHead(204).end();
  }

  private list(res: ServerResponse): void {
    const keys = [...this.objects.keys()].sort();
    const contents = keys.map((key) => {
      const object = this.objects.get(key)!;
      return (
        `<Contents><Key>${xmlEscape(key)}</Key><LastModified>${object.modified.toISOString()}` +
        `</LastModified><ETag>${xmlEscape(object.etag)}</ETag><Size>${object.size}</Size>` +
        `<StorageClass>STANDARD</StorageClass></Contents>`
      );
    });
    answerXml(
      res,
      `<ListBucketResult><Name>${TEST_BUCKET}</Name><Prefix></Prefix><KeyCount>${keys.length}` +
        `</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>${contents.join('')}` +
        `</ListBucketResult>`,
    );
  }

  private pending(uploadId: string): PendingUpload {
    const upload = this.uploads.get(uploadId);
    if (!upload) throw new S3Error(404, 'NoSuchUpload', 'The specified upload does not exist.');
    return upload;
  }

  private async newDirectory(): Promise<string> {
    const directory = join(this.directory, randomBytes(12).toString('hex'));
    await mkdir(directory);
    return directory;
  }

  /** Replaces what was at `key` (S3's last writer wins), dropping the old object's files. */
  private store(key: string, object: StoredObject): void {
    const replaced = this.objects.get(key);
    this.objects.set(key, object);
    if (replaced) void rm(replaced.directory, { recursive: true, force: true });
  }
}

/**
 * Writes a request body of declared length to `path`, in writes of about WRITE_BYTES (a write per
 * socket read would cost this process more than the bytes do); refuses a body without a length or
 * cut short.
 */
async function receive(req: IncomingMessage, path: string): Promise<Part> {
  const declared = req.headers['content-length'];
  if (declared === undefined) {
    req.resume();
    throw new S3Error(411, 'MissingContentLength', 'You must provide the Content-Length header.');
  }
  const file = await open(path, 'wx');
  let size = 0;
  try {
    let batch: Buffer[] = [];
    let batchBytes = 0;
    for await (const chunk of req) {
      batch.push(chunk as Buffer);
      batchBytes += (chunk as Buffer).length;
      if (batchBytes < WRITE_BYTES) continue;
      size += await writeChunks(file, batch, size);
      batch = [];
      batchBytes = 0;
    }
    size += await writeChunks(file, batch, size);
  } catch (error) {
    await file.close();
    await unlink(path).catch(() => undefined);
    throw error;
  }
  await file.close();
  if (size !== Number(declared)) {
    await unlink(path);
    throw new S3Error(400, 'IncompleteBody', 'Fewer bytes than the Content-Length header.');
  }
  return { path, size, etag: etag() };
}

function answerXml(res: ServerResponse, body: string): void {
  const bytes = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
  res.writeHead(200, { 'Content-Type': 'application/xml', 'Content-Length': bytes.length });
  res.end(bytes);
}

function answerError(res: ServerResponse, error: S3Error): void {
  const bytes = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${error.code}</Code>` +
      `<Message>${xmlEscape(error.message)}</Message></Error>`,
  );
  res.writeHead(error.status, {
    'Content-Type': 'application/xml',
    'Content-Length': bytes.length,
  });
  res.end(bytes);
}

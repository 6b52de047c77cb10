import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  DeleteObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export const TEST_BUCKET = 'herald-media';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** The variables that point Herald at an S3-protocol server at `endpoint`, bucket TEST_BUCKET. */
export function s3Env(endpoint: string): Record<string, string> {
  return {
    MEDIA_STORAGE_DRIVER: 's3',
    S3_BUCKET: TEST_BUCKET,
    S3_REGION: 'us-east-1',
    S3_ENDPOINT: endpoint,
    S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
  };
}

/**
 * A real S3-protocol server (s3rver) on 127.0.0.1 and an ephemeral port, with one bucket, and a
 * client of the tests' own to look into it over the same protocol.
 */
export class S3TestServer {
  private server?: S3rver;
  private directory = '';
  endpoint = '';
  client!: S3Client;

  async start(): Promise<this> {
    this.directory = mkdtempSync(join(tmpdir(), 'herald-s3-'));
    this.server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: this.directory,
      configureBuckets: [{ name: TEST_BUCKET }],
    });
    const { port } = await this.server.run();
    this.endpoint = `http://127.0.0.1:${port}`;
    this.client = new S3Client({
      region: 'us-east-1',
      endpoint: this.endpoint,
      forcePathStyle: true,
      credentials: CREDENTIALS,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    return this;
  }

  async stop(): Promise<void> {
    this.client?.destroy();
    await this.server?.close();
    rmSync(this.directory, { recursive: true, force: true });
  }

  /** The variables that point Herald at this server. */
  env(): Record<string, string> {
    return s3Env(this.endpoint);
  }

  async keys(): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: TEST_BUCKET, ContinuationToken: token }),
      );
      keys.push(...(page.Contents ?? []).map((o) => o.Key as string));
      token = page.NextContinuationToken;
    } while (token);
    return keys.sort();
  }

  async read(key: string): Promise<Buffer> {
    const answer = await this.client.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: key }));
    return Buffer.from(await answer.Body!.transformToByteArray());
  }

  async write(key: string, bytes: Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: key, Body: bytes }));
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: TEST_BUCKET, Key: key }));
  }

  /**
   * Multipart uploads the server has started and not completed. s3rver keeps them as directories
   * and offers no listing call for them, so this one looks at its directory.
   */
  pendingUploads(): string[] {
    const found: string[] = [];
    const walk = (dir: string) => {
      if (!existsSync(dir)) return;
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (!entry.isDirectory()) continue;
        if (entry.name.endsWith('._S3rver_uploads'))
          found.push(...readdirSync(join(dir, entry.name)));
        else walk(join(dir, entry.name));
      }
    };
    walk(join(this.directory, TEST_BUCKET));
    return found;
  }
}

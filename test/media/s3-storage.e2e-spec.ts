import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AddressInfo, createServer } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import type { AppConfig } from '../../src/infrastructure/config/config';
import { InvalidStoragePathError } from '../../src/infrastructure/storage/local-disk.storage';
import { S3_PART_SIZE, S3Storage } from '../../src/infrastructure/storage/s3.storage';
import { StorageUnavailableError } from '../../src/infrastructure/storage/storage-driver';
import { Factory } from '../support/factories/factories';
import { fixture, generatedBytes } from '../support/factories/media-helpers';
import { waitForPostStatus } from '../support/publication';
import { S3TestServer, TEST_BUCKET } from '../support/s3-server';
import { TcpProxy } from '../support/tcp-proxy';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startTestApp, TestApp } from '../support/test-app';
import { sleep, waitFor } from '../support/waits';

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The files under `directory` that this process still holds open: an unlinked spool keeps its
 * disk space until its descriptor is closed (Linux's /proc).
 */
function openFilesUnder(directory: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(`${directory}/`) ? [target] : [];
    } catch {
      return []; // closed meanwhile (the descriptor of readdirSync itself)
    }
  });
}

/** Media in an S3-compatible bucket, against a real S3-protocol server (s3rver). */
describe('S3 media storage', () => {
  describe('S3Storage, the driver', () => {
    let s3: S3TestServer;
    let storage: S3Storage;
    const configFor = (endpoint: string, bucket = TEST_BUCKET) =>
      ({
        publicBaseUrl: 'https://herald.example.com',
        s3: {
          bucket,
          region: 'us-east-1',
          endpoint,
          accessKeyId: 'S3RVER',
          secretAccessKey: 'S3RVER',
          forcePathStyle: true,
        },
      }) as AppConfig;
    const driverFor = (endpoint: string, bucket = TEST_BUCKET) =>
      new S3Storage(configFor(endpoint, bucket));

    beforeAll(async () => {
      s3 = await new S3TestServer().start();
      storage = driverFor(s3.endpoint);
    });

    afterAll(async () => {
      storage?.onApplicationShutdown();
      await s3?.stop();
    });

    it('streams an object in, reads it back, and deletes it; a missing object deletes quietly', async () => {
      const path = 'projects/1/2026/11/abc.png';
      const { size } = await storage.put(
        path,
        Readable.from([Buffer.from('hello '), Buffer.from('world')]),
        'image/png',
      );
      expect(size).toBe(11);
      expect((await s3.read(path)).toString()).toBe('hello world');
      expect((await readAll(await storage.openRead(path))).toString()).toBe('hello world');
      expect(storage.publicUrl(path)).toBe(
        'https://herald.example.com/media/projects/1/2026/11/abc.png',
      );
      await storage.delete(path);
      await storage.delete(path);
      expect(await s3.keys()).toEqual([]);
      await expect(storage.openRead(path)).rejects.not.toBeInstanceOf(StorageUnavailableError);
    });

    it('uploads a file of several parts (multipart) byte for byte', async () => {
      const bytes = randomBytes(2 * S3_PART_SIZE + 12345);
      // Chunks of an odd size, so that parts and the spool's writes end inside a chunk.
      const chunks = Array.from({ length: Math.ceil(bytes.length / 70_001) }, (_, i) =>
        bytes.subarray(i * 70_001, (i + 1) * 70_001),
      );
      const { size: stored } = await storage.put(
        'projects/1/big.png',
        Readable.from(chunks),
        'image/png',
      );
      expect(stored).toBe(bytes.length);
      expect((await s3.read('projects/1/big.png')).equals(bytes)).toBe(true);
      await storage.delete('projects/1/big.png');
    });

    it.each([
      ['in its first part (one PutObject)', 1024],
      ['after several parts (multipart)', 2 * S3_PART_SIZE + 1],
    ])(
      'a body that fails %s leaves no object and no spooled file, and rejects with its own error',
      async (_when, failAfter) => {
        async function* failing(): AsyncGenerator<Buffer> {
          yield* generatedBytes(Buffer.alloc(0), failAfter);
          throw new Error('client went away');
        }
        const spoolDirectory = mkdtempSync(join(tmpdir(), 'herald-spool-'));
        const spooling = new S3Storage(configFor(s3.endpoint), spoolDirectory);
        try {
          await expect(
            spooling.put('projects/1/cut.png', Readable.from(failing()), 'image/png'),
          ).rejects.toThrow('client went away');
          // No object; the parts are aborted, which s3rver accepts but does not implement, so its
          // pending uploads cannot be checked here.
          expect(await s3.keys()).toEqual([]);
          expect(readdirSync(spoolDirectory)).toEqual([]);
          expect(openFilesUnder(spoolDirectory)).toEqual([]);
        } finally {
          spooling.onApplicationShutdown();
          rmSync(spoolDirectory, { recursive: true, force: true });
        }
      },
    );

    it('spools the file to a temporary file that is unlinked at once: nothing is left even mid-upload', async () => {
      const spoolDirectory = mkdtempSync(join(tmpdir(), 'herald-spool-'));
      const spooling = new S3Storage(configFor(s3.endpoint), spoolDirectory);
      const body = new PassThrough();
      try {
        const pending = s3.pendingUploads().length;
        const stored = spooling.put('projects/1/held.png', body, 'image/png');
        body.write(Buffer.alloc(S3_PART_SIZE + 1));
        // The first part has left for the store while the body is still arriving.
        await waitFor(() => s3.pendingUploads().length > pending, 10_000);
        expect(readdirSync(spoolDirectory)).toEqual([]);
        expect(openFilesUnder(spoolDirectory)).toHaveLength(1); // held open, unlinked
        body.end(Buffer.alloc(10));
        expect(await stored).toEqual({ size: S3_PART_SIZE + 11 });
        expect((await s3.read('projects/1/held.png')).length).toBe(S3_PART_SIZE + 11);
        expect(readdirSync(spoolDirectory)).toEqual([]);
        expect(openFilesUnder(spoolDirectory)).toEqual([]);
      } finally {
        await storage.delete('projects/1/held.png');
        spooling.onApplicationShutdown();
        rmSync(spoolDirectory, { recursive: true, force: true });
      }
    });

    it('a store that goes away mid-upload: StorageUnavailableError, the body is no longer read, no object', async () => {
      const proxy = await new TcpProxy('127.0.0.1', Number(new URL(s3.endpoint).port)).start();
      const flaky = driverFor(`http://127.0.0.1:${proxy.port}`);
      const body = new PassThrough();
      try {
        const pending = s3.pendingUploads().length;
        const stored = flaky.put('projects/1/flaky.png', body, 'image/png');
        body.write(Buffer.alloc(S3_PART_SIZE + 1));
        await waitFor(() => s3.pendingUploads().length > pending, 10_000);
        proxy.cut('refuse');
        // Writes until the driver stops reading (a real client then sees its upload stall).
        const feed = (async () => {
          for (let i = 0; i < 40 && !body.destroyed; i++) {
            body.write(Buffer.alloc(1024 * 1024));
            await sleep(20);
          }
        })();
        await expect(stored).rejects.toBeInstanceOf(StorageUnavailableError);
        await feed;
        expect(body.destroyed).toBe(true);
        expect(await s3.keys()).toEqual([]);
      } finally {
        flaky.onApplicationShutdown();
        await proxy.stop();
      }
    });

    it('refuses keys that are not storage keys, without asking the store', async () => {
      for (const path of ['../x.png', '/etc/passwd', 'projects//a.png', '.incoming/a.part']) {
        await expect(storage.openRead(path)).rejects.toBeInstanceOf(InvalidStoragePathError);
        await expect(storage.delete(path)).rejects.toBeInstanceOf(InvalidStoragePathError);
        await expect(
          storage.put(path, Readable.from([Buffer.from('x')]), 'image/png'),
        ).rejects.toBeInstanceOf(InvalidStoragePathError);
      }
    });

    it('a store that does not answer, or has no such bucket, is StorageUnavailableError', async () => {
      const away = driverFor(`http://127.0.0.1:${await closedPort()}`);
      const wrongKey = driverFor(s3.endpoint, 'no-such-bucket');
      try {
        for (const driver of [away, wrongKey]) {
          await expect(
            driver.put('projects/1/a.png', Readable.from([Buffer.from('x')]), 'image/png'),
          ).rejects.toBeInstanceOf(StorageUnavailableError);
          await expect(driver.openRead('projects/1/a.png')).rejects.toBeInstanceOf(
            StorageUnavailableError,
          );
        }
        expect(await s3.keys()).toEqual([]);
      } finally {
        away.onApplicationShutdown();
        wrongKey.onApplicationShutdown();
      }
    });
  });

  describe('Herald on S3', () => {
    let t: TestApp;
    let telegram: TelegramStandIn;
    let make: Factory;
    let key: string;
    let projectId: number;
    let channelRef: string;

    beforeAll(async () => {
      telegram = await new TelegramStandIn().start();
      t = await startTestApp(
        {
          TELEGRAM_API_BASE_URL: telegram.url,
          RATE_LIMIT_UPLOAD: '1000',
          RATE_LIMIT_CREATE_POST: '1000',
          RATE_LIMIT_PUBLISH: '1000',
        },
        { storage: 's3' },
      );
      make = new Factory(t, telegram);
      const { owner, project, key: apiKey } = await make.owner('On S3');
      key = apiKey;
      projectId = project.id;
      const account = await make.telegramAccount(owner, project);
      channelRef = (await make.channel(owner, account.id)).id;
    });

    afterAll(async () => {
      await t?.close();
      await telegram?.stop();
    });

    const upload = (app: TestApp, name: string) =>
      app.http
        .post(`/api/public/v1/projects/${projectId}/media`)
        .set('Authorization', `Bearer ${key}`)
        .attach('files', fixture(name), name);

    it('the worker streams the photos from the bucket to Telegram', async () => {
      const png = (await upload(t, 'sample.png').expect(201)).body.items[0];
      const jpg = (await upload(t, 'sample.jpg').expect(201)).body.items[0];
      expect(await t.s3!.keys()).toEqual(
        expect.arrayContaining([png.storage_path, jpg.storage_path]),
      );
      const res = await t.http
        .post(`/api/public/v1/projects/${projectId}/posts`)
        .set('Authorization', `Bearer ${key}`)
        .send({
          text: 'From the bucket',
          media_ids: [png.id, jpg.id],
          targets: [{ channel_ref: channelRef }],
          publish_now: true,
        })
        .expect(201);
      expect((await waitForPostStatus(t, res.body.id as number)).status).toBe('published');
      const [album] = telegram.callsOf('sendMediaGroup');
      expect(album.files.map((f) => f.bytes.equals(fixture(f.filename)))).toEqual([true, true]);
    });

    describe('with the store away', () => {
      let away: TestApp;
      beforeAll(async () => {
        away = await startTestApp(
          {
            S3_ENDPOINT: `http://127.0.0.1:${await closedPort()}`,
            TELEGRAM_API_BASE_URL: telegram.url,
            RATE_LIMIT_UPLOAD: '1000',
            RATE_LIMIT_CREATE_POST: '1000',
            // A queue of its own: only this instance, which cannot reach the store, takes its jobs.
            REDIS_KEY_PREFIX: `${t.config.redisKeyPrefix}:away`,
          },
          { shareWith: t },
        );
      });
      afterAll(() => away?.close());

      it('an upload answers 503 service_unavailable with Retry-After, and keeps no row', async () => {
        const before = await t.db.query('SELECT count(*)::int AS n FROM media_assets');
        const res = await upload(away, 'sample.gif').expect(503);
        expect(res.body).toEqual({
          error: { code: 'service_unavailable', message: expect.any(String) },
        });
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect((await t.db.query('SELECT count(*)::int AS n FROM media_assets')).rows).toEqual(
          before.rows,
        );
      });

      it('GET /media/<path> answers 503, not 404: the file is there, the store is not', async () => {
        const stored = (await upload(t, 'sample.webp').expect(201)).body.items[0];
        const path = new URL(stored.url as string).pathname;
        await t.http.get(path).expect(200);
        const res = await away.http.get(path).expect(503);
        expect(res.body.error.code).toBe('service_unavailable');
      });

      it('a publication whose photo cannot be read yet is retried, not failed for good', async () => {
        const stored = (await upload(t, 'sample.png').expect(201)).body.items[0];
        telegram.reset();
        const res = await away.http
          .post(`/api/public/v1/projects/${projectId}/posts`)
          .set('Authorization', `Bearer ${key}`)
          .send({
            media_ids: [stored.id],
            targets: [{ channel_ref: channelRef }],
            publish_now: true,
          })
          .expect(201);
        const failures = async () =>
          (
            await t.db.query<{ failures: number; status: string; error_code: string | null }>(
              'SELECT failures, status, error_code FROM post_targets WHERE post_id = $1',
              [res.body.id],
            )
          ).rows[0];
        await waitFor(async () => (await failures()).failures >= 1, 10_000);
        expect(await failures()).toMatchObject({ status: 'pending', error_code: null });
        expect(telegram.callsOf('sendPhoto')).toEqual([]);
      });
    });
  });
});

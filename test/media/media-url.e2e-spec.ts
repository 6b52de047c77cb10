import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { loadConfig } from '../../src/infrastructure/config/config';
import { MediaService } from '../../src/domains/media/media.service';
import { UrlFetcher } from '../../src/domains/media/url-fetcher';
import {
  HostAdmission,
  type HostResolver,
  type ResolvedAddress,
} from '../../src/infrastructure/outbound/pinned-address';
import { Factory, TestProject } from '../support/factories/factories';
import { FIFTY_MB, fixture } from '../support/factories/media-helpers';
import { RemoteFileServer } from '../support/remote-file-server';
import { addMember, onlyFlags } from '../support/factories/team';
import { MEDIA_DRIVERS } from '../support/media-store';
import { startTestApp, TEST_APP_SECRET, TestApp } from '../support/test-app';
import { waitFor } from '../support/waits';

/**
 * Short enough to keep the two stalling cases quick, long enough for a 50 MB download into either
 * storage driver on a busy machine; the default stays 30 s (docs/api-rules.md#media).
 */
const FETCH_TIMEOUT_MS = 6000;
const PNG = fixture('sample.png');
const JPEG = fixture('sample.jpg');
const ZEROS = Buffer.alloc(64 * 1024);

/** Writes `head` then zeros, respecting backpressure, up to `size` bytes (or forever). */
function streamZeros(res: ServerResponse, head: Buffer, size = Infinity): void {
  let sent = 0;
  const pump = () => {
    while (sent < size && !res.destroyed) {
      const chunk = sent === 0 ? head : ZEROS.subarray(0, Math.min(ZEROS.length, size - sent));
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (sent >= size) res.end();
  };
  pump();
}

describe.each(MEDIA_DRIVERS)(
  'POST /projects/{id}/media by link (docs/api-rules.md#media), on %s storage',
  (driver) => {
    let t: TestApp;
    let make: Factory;
    let key: string;
    let project: TestProject;
    /** The one server tests may fetch from: 127.0.0.2, listed in MEDIA_FETCH_ALLOW_CIDRS. */
    let files: RemoteFileServer;
    /** Servers that must never be reached: IPv4 and IPv6 loopback. */
    let victim: RemoteFileServer;
    let victim6: RemoteFileServer;

    beforeAll(async () => {
      victim = await new RemoteFileServer('127.0.0.1').start();
      victim6 = await new RemoteFileServer('::1').start();
      files = new RemoteFileServer('127.0.0.2');
      files
        .route('/sample.png', (_req, res) =>
          res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(PNG),
        )
        .route('/photos/sample.jpg', (_req, res) =>
          res.writeHead(200, { 'content-type': 'text/html' }).end(JPEG),
        )
        .route('/photos/', (_req, res) => res.writeHead(200).end(PNG))
        .route('/not-an-image.png', (_req, res) =>
          res.writeHead(200, { 'content-type': 'image/png' }).end(fixture('not-an-image.png')),
        )
        .route('/broken', (_req, res) => res.writeHead(500).end('boom'))
        .route('/too-big-declared', (_req, res) => {
          res.writeHead(200, {
            'content-length': String(FIFTY_MB + 1),
            'content-type': 'image/png',
          });
          res.write(PNG.subarray(0, 64)); // …and the rest never comes: the client must stop at the header.
        })
        .route('/too-big-streamed', (_req, res) => {
          res.writeHead(200, { 'content-type': 'image/png' }); // chunked, no length, never ends
          streamZeros(res, PNG.subarray(0, 64));
        })
        .route('/exactly-fifty-mb', (_req, res) => {
          res.writeHead(200, { 'content-type': 'image/png' });
          streamZeros(res, PNG.subarray(0, 64), FIFTY_MB);
        })
        .route('/stall-headers', () => undefined)
        .route('/stall-body', (_req, res) => {
          res.writeHead(200, { 'content-length': '100000' });
          res.write(PNG.subarray(0, 100));
        })
        .route('/cut-body', (_req, res) => {
          res.writeHead(200, { 'content-length': '100000' });
          // Enough for the type to be known, then the connection drops mid-body.
          res.write(Buffer.concat([PNG, Buffer.alloc(8192)]), () => res.socket?.destroy());
        })
        .route('/redirect-to-sample', (_req, res) =>
          res.writeHead(302, { location: '/sample.png' }).end(),
        )
        .route('/redirect-loopback', (_req, res) =>
          res.writeHead(302, { location: victim.url('/') }).end(),
        )
        .route('/redirect-metadata', (_req, res) =>
          res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
        )
        .route('/redirect-v6-loopback', (_req, res) =>
          res.writeHead(307, { location: victim6.url('/') }).end(),
        )
        .route('/redirect-localhost', (_req, res) =>
          res.writeHead(308, { location: `http://localhost:${victim.port}/` }).end(),
        )
        .route('/redirect-mapped', (_req, res) =>
          res.writeHead(303, { location: `http://[::ffff:127.0.0.1]:${victim.port}/` }).end(),
        )
        .route('/redirect-file', (_req, res) =>
          res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
        )
        .route('/redirect-no-location', (_req, res) => res.writeHead(302).end());
      for (let n = 0; n <= 6; n++) {
        files.route(`/chain/${n}`, (_req, res) => {
          if (n === 0) res.writeHead(200).end(PNG);
          else res.writeHead(302, { location: `/chain/${n - 1}` }).end();
        });
      }
      await files.start();

      t = await startTestApp(
        {
          MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.2/32',
          MEDIA_FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS),
          RATE_LIMIT_UPLOAD: '1000000',
        },
        { storage: driver },
      );
      make = new Factory(t);
      ({ project, key } = await make.owner('Links'));
    });

    afterAll(async () => {
      await t?.close();
      await Promise.all([files?.stop(), victim?.stop(), victim6?.stop()]);
    });

    const byLink = (body: object) =>
      t.http
        .post(`/api/public/v1/projects/${project.id}/media`)
        .set('Authorization', `Bearer ${key}`)
        .send(body);

    async function snapshot(): Promise<{ rows: number; files: string[] }> {
      const { rows } = await t.db.query('SELECT count(*)::int AS n FROM media_assets');
      return { rows: rows[0].n as number, files: await t.media.files() };
    }

    async function expectRefused(
      body: object,
      status: number,
      code: string,
    ): Promise<{ error: { code: string; message: string } }> {
      const before = await snapshot();
      const res = await byLink(body);
      expect({ status: res.status, body: res.body }).toEqual({
        status,
        body: { error: { code, message: expect.any(String) } },
      });
      expect(await snapshot()).toEqual(before);
      return res.body;
    }

    describe('downloads from an allowed server', () => {
      it('stores the bytes with the given filename, typed from the bytes', async () => {
        const res = await byLink({ url: files.url('/sample.png'), filename: 'cover.png' }).expect(
          201,
        );
        expect(res.body.count).toBe(1);
        const asset = res.body.items[0];
        expect(asset).toEqual({
          id: expect.any(Number),
          type: 'image',
          filename: 'cover.png',
          mime_type: 'image/png',
          size_bytes: PNG.length,
          alt_text: null,
          url: `http://herald.test/media/${asset.storage_path}`,
          storage_path: expect.stringMatching(
            new RegExp(`^projects/${project.id}/\\d{4}/\\d{2}/[0-9a-f]{32}\\.png$`),
          ),
          created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/),
        });
        expect((await t.media.read(asset.storage_path)).equals(PNG)).toBe(true);
        const served = await t.http.get(`/media/${asset.storage_path}`).expect(200);
        expect(served.headers['content-type']).toBe('image/png');
        expect(served.headers['x-content-type-options']).toBe('nosniff');
      });

      it('without filename: the last path segment of the URL, else file.<ext>', async () => {
        const named = await byLink({ url: files.url('/photos/sample.jpg?size=large') }).expect(201);
        expect(named.body.items[0]).toMatchObject({
          filename: 'sample.jpg',
          mime_type: 'image/jpeg',
        });
        const unnamed = await byLink({ url: files.url('/photos/') }).expect(201);
        expect(unnamed.body.items[0].filename).toBe('file.png');
      });

      it('follows a redirect and names the file after the final URL', async () => {
        const res = await byLink({ url: files.url('/redirect-to-sample') }).expect(201);
        expect(res.body.items[0].filename).toBe('sample.png');
      });

      it('follows at most 5 redirects: 5 pass, 6 are 502 download_failed', async () => {
        await byLink({ url: files.url('/chain/5') }).expect(201);
        await expectRefused({ url: files.url('/chain/6') }, 502, 'download_failed');
      });

      it('accepts exactly 52,428,800 bytes streamed without Content-Length', async () => {
        const res = await byLink({ url: files.url('/exactly-fifty-mb') }).expect(201);
        const asset = res.body.items[0];
        expect(asset.size_bytes).toBe(FIFTY_MB);
        await t.db.query('DELETE FROM media_assets WHERE id = $1', [asset.id]);
        await t.app.get(MediaService).discardFile(asset.storage_path);
      });
    });

    describe('refuses what the remote serves', () => {
      it('a 404 from the remote: 502 download_failed, nothing kept', async () => {
        await expectRefused({ url: files.url('/missing.png') }, 502, 'download_failed');
      });

      it('a 500 from the remote: 502 download_failed', async () => {
        await expectRefused({ url: files.url('/broken') }, 502, 'download_failed');
      });

      it('text served as image/png: 415 unsupported_media_type, nothing kept', async () => {
        await expectRefused({ url: files.url('/not-an-image.png') }, 415, 'unsupported_media_type');
      });

      it('Content-Length over 50 MB: 413 file_too_large before reading the body', async () => {
        await expectRefused({ url: files.url('/too-big-declared') }, 413, 'file_too_large');
        await waitFor(() => files.abandoned.includes('/too-big-declared'));
      });

      it('over 50 MB without Content-Length: 413 file_too_large, the download stopped at once', async () => {
        await expectRefused({ url: files.url('/too-big-streamed') }, 413, 'file_too_large');
        // The server streams forever; only our side closing the connection ends it.
        await waitFor(() => files.abandoned.includes('/too-big-streamed'));
      });

      it('a server that never answers: 504 download_timeout', async () => {
        await expectRefused({ url: files.url('/stall-headers') }, 504, 'download_timeout');
      });

      it('a server that stalls in the middle of the body: 504 download_timeout, nothing kept', async () => {
        await expectRefused({ url: files.url('/stall-body') }, 504, 'download_timeout');
      });

      it('a connection that drops in the middle of the body: 502 download_failed, nothing kept', async () => {
        await expectRefused({ url: files.url('/cut-body') }, 502, 'download_failed');
      });

      it('a refused connection: 502 download_failed', async () => {
        const closed = new RemoteFileServer('127.0.0.2');
        await closed.start();
        const url = closed.url('/x.png');
        await closed.stop();
        await expectRefused({ url }, 502, 'download_failed');
      });
    });

    describe('checks every redirect like the first URL', () => {
      it.each([
        ['/redirect-loopback', 'url_not_allowed'],
        ['/redirect-metadata', 'url_not_allowed'],
        ['/redirect-v6-loopback', 'url_not_allowed'],
        ['/redirect-localhost', 'url_not_allowed'],
        ['/redirect-mapped', 'url_not_allowed'],
        ['/redirect-file', 'invalid_url'],
      ])('%s: 400 %s, the target never reached', async (path, code) => {
        await expectRefused({ url: files.url(path) }, 400, code);
        expect(victim.hits).toEqual([]);
        expect(victim6.hits).toEqual([]);
      });

      it('a redirect without Location: 502 download_failed', async () => {
        await expectRefused({ url: files.url('/redirect-no-location') }, 502, 'download_failed');
      });
    });

    describe('refuses hostile URLs without fetching anything', () => {
      // Filled in beforeAll's servers: V = IPv4 loopback victim, V6 = IPv6 loopback victim, A = the allowed server.
      const hostile = (): [string, string][] => {
        const V = victim.port;
        const V6 = victim6.port;
        const A = files.port;
        return [
          ['file:///etc/passwd', 'invalid_url'],
          [`ftp://127.0.0.2:${A}/hostile`, 'invalid_url'],
          [`gopher://127.0.0.2:${A}/hostile`, 'invalid_url'],
          ['data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==', 'invalid_url'],
          ['javascript:alert(1)', 'invalid_url'],
          [`ws://127.0.0.2:${A}/hostile`, 'invalid_url'],
          [`//127.0.0.2:${A}/hostile`, 'invalid_url'],
          ['not a url', 'invalid_url'],
          [`http://user:pass@127.0.0.2:${A}/hostile`, 'invalid_url'],
          [`http://user@127.0.0.2:${A}/hostile`, 'invalid_url'],
          [`http://:secret@127.0.0.2:${A}/hostile`, 'invalid_url'],
          [`https://user:pass@example.com/a.png`, 'invalid_url'],
          [`http://localhost:${V}/`, 'url_not_allowed'],
          [`http://LOCALHOST:${V}/`, 'url_not_allowed'],
          [`http://localhost.:${V}/`, 'url_not_allowed'],
          [`http://media.localhost:${V}/`, 'url_not_allowed'],
          [`http://127.0.0.1:${V}/`, 'url_not_allowed'],
          [`https://127.0.0.1:${V}/`, 'url_not_allowed'],
          [`http://127.1:${V}/`, 'url_not_allowed'],
          [`http://2130706433:${V}/`, 'url_not_allowed'],
          [`http://0x7f.1:${V}/`, 'url_not_allowed'],
          [`http://0x7f000001:${V}/`, 'url_not_allowed'],
          [`http://017700000001:${V}/`, 'url_not_allowed'],
          [`http://0177.0.0.1:${V}/`, 'url_not_allowed'],
          [`http://127.0.0.3:${V}/`, 'url_not_allowed'],
          [`http://[::1]:${V6}/`, 'url_not_allowed'],
          [`http://[::ffff:127.0.0.1]:${V}/`, 'url_not_allowed'],
          [`http://[::127.0.0.1]:${V6}/`, 'url_not_allowed'],
          [`http://[::ffff:7f00:1]:${V}/`, 'url_not_allowed'],
          [`http://[0:0:0:0:0:ffff:127.0.0.1]:${V}/`, 'url_not_allowed'],
          [`http://[::]:${V}/`, 'url_not_allowed'],
          [`http://0.0.0.0:${V}/`, 'url_not_allowed'],
          [`http://0:${V}/`, 'url_not_allowed'],
          ['http://[64:ff9b::a9fe:a9fe]/', 'url_not_allowed'],
          ['http://[fd00::1]/', 'url_not_allowed'],
          ['http://[fe80::1]/', 'url_not_allowed'],
          ['http://[ff02::1]/', 'url_not_allowed'],
          ['http://10.0.0.1/', 'url_not_allowed'],
          ['http://172.16.0.1/', 'url_not_allowed'],
          ['http://192.168.1.1/', 'url_not_allowed'],
          ['http://100.64.0.1/', 'url_not_allowed'],
          ['http://169.254.169.254/latest/meta-data/', 'url_not_allowed'],
          ['http://[::ffff:169.254.169.254]/', 'url_not_allowed'],
          ['http://[::ffff:a9fe:a9fe]/', 'url_not_allowed'],
          ['http://224.0.0.1/', 'url_not_allowed'],
          ['http://255.255.255.255/', 'url_not_allowed'],
          ['http://192.0.2.1/', 'url_not_allowed'],
        ];
      };

      it('refuses every one of the table, and no server sees a single request', async () => {
        const table = hostile();
        expect(table.length).toBeGreaterThanOrEqual(30);
        const before = await snapshot();
        const outcomes: { url: string; status: number; code: string }[] = [];
        for (const [url] of table) {
          const res = await byLink({ url });
          outcomes.push({ url, status: res.status, code: res.body.error?.code });
        }
        expect(outcomes).toEqual(table.map(([url, code]) => ({ url, status: 400, code })));
        expect(victim.hits).toEqual([]);
        expect(victim6.hits).toEqual([]);
        expect(files.hitsOf('/hostile')).toBe(0);
        expect(await snapshot()).toEqual(before);
      });
    });

    describe('access is checked before anything is fetched', () => {
      it('no key, a key without media:write, another user’s project, a member without can_edit_content: refused, the URL never requested', async () => {
        files.route('/access-probe.png', (_req, res) => res.writeHead(200).end(PNG));
        const body = { url: files.url('/access-probe.png') };
        const { owner, project: theirs } = await make.owner('Not yours');
        const narrow = await make.apiKey(owner, { scopes: ['projects:read', 'posts:write'] });
        const observer = await make.admin('Observer');
        await addMember(t, owner, theirs, observer, 'observer', onlyFlags('can_view_content'));
        const before = await snapshot();

        const outcomes = [];
        for (const apiKey of [undefined, narrow, key, await make.apiKey(observer)]) {
          const req = t.http.post(`/api/public/v1/projects/${theirs.id}/media`);
          if (apiKey) req.set('Authorization', `Bearer ${apiKey}`);
          const res = await req.send(body);
          outcomes.push({ status: res.status, code: res.body.error?.code });
        }
        expect(outcomes).toEqual([
          { status: 401, code: 'unauthorized' },
          { status: 403, code: 'insufficient_scope' },
          { status: 404, code: 'project_not_found' },
          { status: 403, code: 'forbidden' },
        ]);
        expect(files.hitsOf('/access-probe.png')).toBe(0);
        expect(await snapshot()).toEqual(before);
      });
    });

    describe('validates the JSON body', () => {
      it.each([
        ['no url', {}, 'url'],
        ['a url that is not a string', { url: 42 }, 'url'],
        ['an empty url', { url: '' }, 'url'],
        [
          'a filename that is not a string',
          { url: 'http://example.com/a.png', filename: 7 },
          'filename',
        ],
        ['an unknown field', { url: 'http://example.com/a.png', extra: true }, 'extra'],
        [
          'a url over 2048 characters',
          { url: `http://example.com/${'a'.repeat(2100)}.png` },
          'url',
        ],
      ])('%s: 400 validation_failed naming the field', async (_label, body, field) => {
        const res = await byLink(body).expect(400);
        expect(res.body.error.code).toBe('validation_failed');
        expect(res.body.error.message).toContain(field);
      });

      it('a body that is not JSON: 400 invalid_json', async () => {
        const res = await t.http
          .post(`/api/public/v1/projects/${project.id}/media`)
          .set('Authorization', `Bearer ${key}`)
          .set('Content-Type', 'application/json')
          .send('{"url": ')
          .expect(400);
        expect(res.body.error.code).toBe('invalid_json');
      });

      it('a JSON array: 400 validation_failed', async () => {
        const res = await byLink([{ url: files.url('/sample.png') }]).expect(400);
        expect(res.body.error.code).toBe('validation_failed');
      });
    });

    describe('UrlFetcher: DNS answers are checked and the connection pinned to them', () => {
      const config = loadConfig({
        DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/unused',
        APP_SECRET: TEST_APP_SECRET,
        MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.2/32',
        MEDIA_FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS),
      });
      /** A fake DNS: fixed answers per name, and a log of every question. */
      function fakeDns(answers: Record<string, string[]>): HostResolver & { asked: string[] } {
        const asked: string[] = [];
        const resolver = async (host: string): Promise<ResolvedAddress[]> => {
          asked.push(host);
          return (answers[host] ?? []).map((address) => ({
            address,
            family: address.includes(':') ? 6 : 4,
          }));
        };
        return Object.assign(resolver, { asked });
      }
      function fetcherWith(dns: HostResolver, ca?: string): UrlFetcher {
        return new UrlFetcher(config, new HostAdmission(config, dns), ca);
      }
      async function readAll(body: NodeJS.ReadableStream): Promise<Buffer> {
        const chunks: Buffer[] = [];
        for await (const chunk of body) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks);
      }

      it('connects to the checked address of a name that only our resolver knows', async () => {
        const dns = fakeDns({ 'media.example.test': ['127.0.0.2'] });
        const fetcher = fetcherWith(dns);
        const { body, finalUrl } = await fetcher.fetch(
          `http://media.example.test:${files.port}/sample.png`,
        );
        expect((await readAll(body)).equals(PNG)).toBe(true);
        expect(finalUrl.hostname).toBe('media.example.test');
        expect(dns.asked).toEqual(['media.example.test']);
      });

      it.each([
        [['127.0.0.1']],
        [['10.1.2.3']],
        [['::1']],
        [['::ffff:127.0.0.1']],
        [['127.0.0.2', '127.0.0.1']],
        [['93.184.216.34', '169.254.169.254']],
      ])('refuses a name resolving to %j (every answer must be allowed)', async (addresses) => {
        const fetcher = fetcherWith(fakeDns({ 'rebind.example.test': addresses }));
        await expect(
          fetcher.fetch(`http://rebind.example.test:${victim.port}/`),
        ).rejects.toMatchObject({ code: 'url_not_allowed' });
        expect(victim.hits).toEqual([]);
      });

      it('never asks DNS about localhost', async () => {
        const dns = fakeDns({ localhost: ['127.0.0.2'] });
        await expect(
          fetcherWith(dns).fetch(`http://localhost:${files.port}/hostile`),
        ).rejects.toMatchObject({ code: 'url_not_allowed' });
        expect(dns.asked).toEqual([]);
        expect(files.hitsOf('/hostile')).toBe(0);
      });

      it('checks a redirect to a name that resolves to loopback', async () => {
        const dns = fakeDns({ 'evil.example.test': ['127.0.0.1'] });
        files.route('/redirect-evil-name', (_req, res) =>
          res.writeHead(302, { location: `http://evil.example.test:${victim.port}/` }).end(),
        );
        await expect(
          fetcherWith(dns).fetch(files.url('/redirect-evil-name')),
        ).rejects.toMatchObject({ code: 'url_not_allowed' });
        expect(dns.asked).toEqual(['evil.example.test']);
        expect(victim.hits).toEqual([]);
      });

      describe('over https', () => {
        const tlsDir = join(__dirname, '..', 'fixtures', 'tls');
        const ca = readFileSync(join(tlsDir, 'media-test.crt'), 'utf8');
        let secure: RemoteFileServer;

        beforeAll(async () => {
          secure = new RemoteFileServer('127.0.0.2', {
            key: readFileSync(join(tlsDir, 'media-test.key')),
            cert: Buffer.from(ca),
          });
          secure
            .route('/sample.png', (_req, res) => res.writeHead(200).end(PNG))
            .route('/to-http-loopback', (_req, res) =>
              res.writeHead(302, { location: victim.url('/') }).end(),
            )
            .route('/to-http-allowed', (_req, res) =>
              res.writeHead(302, { location: files.url('/sample.png') }).end(),
            );
          await secure.start();
        });

        afterAll(async () => {
          await secure?.stop();
        });

        it('verifies the certificate against the name while connecting to the pinned address', async () => {
          const dns = fakeDns({ 'media.example.test': ['127.0.0.2'] });
          const { body } = await fetcherWith(dns, ca).fetch(
            secure.url('/sample.png', 'media.example.test'),
          );
          expect((await readAll(body)).equals(PNG)).toBe(true);
          // Without trusting the test CA the same download fails: TLS is verified.
          await expect(
            fetcherWith(dns).fetch(secure.url('/sample.png', 'media.example.test')),
          ).rejects.toMatchObject({ code: 'download_failed' });
        });

        it('checks a redirect from https to http like any other hop', async () => {
          const fetcher = fetcherWith(fakeDns({}), ca);
          await expect(fetcher.fetch(secure.url('/to-http-loopback'))).rejects.toMatchObject({
            code: 'url_not_allowed',
          });
          expect(victim.hits).toEqual([]);
          const { body, finalUrl } = await fetcher.fetch(secure.url('/to-http-allowed'));
          expect((await readAll(body)).equals(PNG)).toBe(true);
          expect(finalUrl.protocol).toBe('http:');
        });
      });

      it('an unknown name: download_failed', async () => {
        await expect(
          fetcherWith(fakeDns({})).fetch('http://nowhere.example.test/a.png'),
        ).rejects.toMatchObject({ code: 'download_failed' });
      });
    });
  },
);

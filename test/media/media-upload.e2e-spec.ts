import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { MediaService } from '../../src/domains/media/media.service';
import {
  INCOMING_DIR,
  STALE_PARTIAL_MS,
} from '../../src/infrastructure/storage/local-disk.storage';
import { Factory, SignedInUser, TestProject } from '../support/factories/factories';
import {
  FIFTY_MB,
  filesUnder,
  fixture,
  generatedBytes,
  MultipartPart,
  postMultipart,
} from '../support/factories/media-helpers';
import { addMember, onlyFlags } from '../support/factories/team';
import { MEDIA_DRIVERS } from '../support/media-store';
import { startTestApp, TestApp } from '../support/test-app';
import { MICROS } from '../support/expectations';
import { waitFor } from '../support/waits';

const PNG_SIGNATURE = fixture('sample.png').subarray(0, 64);

describe.each(MEDIA_DRIVERS)(
  'POST /projects/{id}/media, multipart (docs/api-rules.md#media), on %s storage',
  (driver) => {
    let t: TestApp;
    let make: Factory;
    let admin: SignedInUser;
    let key: string;
    let project: TestProject;
    let baseUrl: string;

    beforeAll(async () => {
      // Many uploads with one key: the upload rate limit is not what this file tests.
      t = await startTestApp({ RATE_LIMIT_UPLOAD: '1000000' }, { storage: driver });
      await t.app.listen(0, '127.0.0.1');
      baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
      make = new Factory(t);
      ({ owner: admin, project, key } = await make.owner('Media'));
    });

    afterAll(async () => {
      await t?.close();
    });

    const mediaPath = (projectId: number = project.id) =>
      `/api/public/v1/projects/${projectId}/media`;
    const upload = (apiKey = key, projectId?: number) =>
      t.http.post(mediaPath(projectId)).set('Authorization', `Bearer ${apiKey}`);

    async function assetRows(projectId = project.id): Promise<number> {
      const { rows } = await t.db.query(
        'SELECT count(*)::int AS n FROM media_assets WHERE project_id = $1',
        [projectId],
      );
      return rows[0].n as number;
    }

    /** A refused upload leaves nothing: no new row, no file (not even a partial one). */
    async function expectNothingKept(before: { rows: number; files: string[] }): Promise<void> {
      expect(await assetRows()).toBe(before.rows);
      expect(await t.media.files()).toEqual(before.files);
    }
    const snapshot = async () => ({ rows: await assetRows(), files: await t.media.files() });

    describe('stores real media, typed from the bytes', () => {
      it.each([
        ['sample.png', 'image', 'image/png', 'png'],
        ['sample.jpg', 'image', 'image/jpeg', 'jpg'],
        ['sample.gif', 'image', 'image/gif', 'gif'],
        ['sample.webp', 'image', 'image/webp', 'webp'],
        ['sample.mp4', 'video', 'video/mp4', 'mp4'],
        ['sample.mov', 'video', 'video/quicktime', 'mov'],
      ])('%s → 201 %s %s, same bytes on disk and served back', async (name, type, mime, ext) => {
        const bytes = fixture(name);
        // The declared type and name are wrong on purpose: only the bytes count.
        const res = await upload()
          .attach('files', bytes, { filename: `holiday-${name}.txt`, contentType: 'text/plain' })
          .expect(201);

        expect(res.body.count).toBe(1);
        expect(res.body.items).toHaveLength(1);
        const asset = res.body.items[0];
        expect(asset).toEqual({
          id: expect.any(Number),
          type,
          filename: `holiday-${name}.txt`,
          mime_type: mime,
          size_bytes: bytes.length,
          alt_text: null,
          url: `http://herald.test/media/${asset.storage_path}`,
          storage_path: expect.stringMatching(
            new RegExp(`^projects/${project.id}/\\d{4}/\\d{2}/[0-9a-f]{32}\\.${ext}$`),
          ),
          created_at: expect.stringMatching(MICROS),
        });

        const { rows } = await t.db.query(
          `SELECT project_id, uploaded_by_id, type, mime_type, size_bytes::int AS size, storage_path,
                to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS created
           FROM media_assets WHERE id = $1`,
          [asset.id],
        );
        expect(rows[0]).toEqual({
          project_id: project.id,
          uploaded_by_id: admin.id,
          type,
          mime_type: mime,
          size: bytes.length,
          storage_path: asset.storage_path,
          created: asset.created_at,
        });
        expect((await t.media.read(asset.storage_path)).equals(bytes)).toBe(true);

        const served = await t.http
          .get(new URL(asset.url).pathname)
          .buffer(true)
          .parse((response, done) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => done(null, Buffer.concat(chunks)));
          })
          .expect(200);
        expect(served.headers['content-type']).toBe(mime);
        expect(served.headers['x-content-type-options']).toBe('nosniff');
        expect((served.body as Buffer).equals(bytes)).toBe(true);
      });

      it('keeps a UTF-8 name and sanitizes whitespace and control characters', async () => {
        const res = await postMultipart(`${baseUrl}${mediaPath()}`, key, [
          {
            field: 'files',
            filename: 'фото\tотпуска.png',
            contentType: 'image/png',
            content: fixture('sample.png'),
          },
        ]);
        expect(res.status).toBe(201);
        const [asset] = res.body.items as { filename: string; storage_path: string }[];
        expect(asset.filename).toBe('фото отпуска.png');
        expect(asset.storage_path).not.toContain('фото');
      });

      it('names a file sent without a name file.<ext>', async () => {
        const res = await postMultipart(`${baseUrl}${mediaPath()}`, key, [
          {
            field: 'files',
            filename: '\u200b\u200b',
            contentType: 'image/jpeg',
            content: fixture('sample.jpg'),
          },
        ]);
        expect(res.status).toBe(201);
        expect((res.body.items as { filename: string }[])[0].filename).toBe('file.jpg');
      });

      it('accepts exactly 52,428,800 bytes, streamed', async () => {
        const res = await postMultipart(`${baseUrl}${mediaPath()}`, key, [
          {
            field: 'files',
            filename: 'exact.png',
            contentType: 'image/png',
            content: { size: FIFTY_MB, chunks: () => generatedBytes(PNG_SIGNATURE, FIFTY_MB) },
          },
        ]);
        expect(res.status).toBe(201);
        const [asset] = res.body.items as { size_bytes: number; storage_path: string }[];
        expect(asset.size_bytes).toBe(FIFTY_MB);
        const { rows } = await t.db.query(
          'SELECT size_bytes::int AS size FROM media_assets WHERE storage_path = $1',
          [asset.storage_path],
        );
        expect(rows[0].size).toBe(FIFTY_MB);
        // Not needed further; keep the temporary directory small.
        await t.app.get(MediaService).discardFile(asset.storage_path);
        await t.db.query('DELETE FROM media_assets WHERE storage_path = $1', [asset.storage_path]);
      });
    });

    describe('refuses, leaving no row and no file', () => {
      const png = (filename = 'a.png'): MultipartPart => ({
        field: 'files',
        filename,
        contentType: 'image/png',
        content: fixture('sample.png'),
      });

      it('two files: 400 too_many_files (one file per upload)', async () => {
        const before = await snapshot();
        const res = await postMultipart(`${baseUrl}${mediaPath()}`, key, [
          png('one.png'),
          png('two.png'),
        ]);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          error: { code: 'too_many_files', message: expect.any(String) },
        });
        await expectNothingKept(before);
      });

      it('a second file in another field is still a second file: 400 too_many_files', async () => {
        const before = await snapshot();
        const res = await postMultipart(`${baseUrl}${mediaPath()}`, key, [
          png(),
          { ...png(), field: 'other' },
        ]);
        expect(res.status).toBe(400);
        expect(res.body.error?.code).toBe('too_many_files');
        await expectNothingKept(before);
      });

      it('no file: 400 file_required', async () => {
        const before = await snapshot();
        const res = await postMultipart(`${baseUrl}${mediaPath()}`, key, []);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: { code: 'file_required', message: expect.any(String) } });
        await expectNothingKept(before);
      });

      it('50 MB + 1 byte: 413 file_too_large, the partial file removed', async () => {
        const before = await snapshot();
        const res = await postMultipart(`${baseUrl}${mediaPath()}`, key, [
          {
            field: 'files',
            filename: 'big.png',
            contentType: 'image/png',
            content: {
              size: FIFTY_MB + 1,
              chunks: () => generatedBytes(PNG_SIGNATURE, FIFTY_MB + 1),
            },
          },
        ]);
        expect(res.status).toBe(413);
        expect(res.body).toEqual({
          error: { code: 'file_too_large', message: expect.any(String) },
        });
        await expectNothingKept(before);
      });

      /**
       * Sends `head` and then zeros without end; what came back, how much had been sent when it did,
       * and how long after the answer the server closed the connection.
       */
      function streamWithoutEnd(boundary: string, head: Buffer) {
        const url = new URL(`${baseUrl}${mediaPath()}`);
        const chunk = Buffer.alloc(256 * 1024);
        let sent = 0;
        return new Promise<{
          status?: number;
          body: string;
          sentAtAnswer: number;
          cutAfterMs: number;
        }>((resolve) => {
          let answeredAt = 0;
          const result = { status: undefined as number | undefined, body: '', sentAtAnswer: -1 };
          const req = httpRequest({
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': `multipart/form-data; boundary=${boundary}`,
            },
          });
          req.on('response', (res) => {
            answeredAt = Date.now();
            result.status = res.statusCode;
            result.sentAtAnswer = sent;
            res.setEncoding('utf8');
            res.on('data', (text: string) => (result.body += text));
          });
          req.on('error', () => undefined); // the cut itself
          req.on('close', () =>
            resolve({ ...result, cutAfterMs: answeredAt ? Date.now() - answeredAt : -1 }),
          );
          req.write(head);
          const pump = (): void => {
            while (!req.destroyed) {
              sent += chunk.length;
              if (!req.write(chunk)) {
                req.once('drain', pump);
                return;
              }
            }
          };
          pump();
        });
      }

      const part = (boundary: string, filename: string) =>
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${filename}"\r\n` +
            'Content-Type: image/png\r\n\r\n',
        );

      it.each([
        [
          'one file without end',
          'file_too_large',
          (b: string) => Buffer.concat([part(b, 'endless.png'), PNG_SIGNATURE]),
        ],
        [
          'a file that is no image, without end',
          'unsupported_media_type',
          (b: string) =>
            Buffer.concat([part(b, 'endless.png'), Buffer.from('plain text, then zeros')]),
        ],
        [
          'a small file, then a second one without end',
          'payload_too_large',
          (b: string) =>
            Buffer.concat([
              part(b, 'small.png'),
              PNG_SIGNATURE,
              Buffer.from('\r\n'),
              part(b, 'endless.png'),
            ]),
        ],
      ])(
        'a refused body that keeps coming (%s) is answered %s at once and cut off 2 s later',
        async (_, code, head) => {
          // multer reads a refused body to its end before answering; a client streaming without end
          // held the request until the server's time-out.
          const before = await snapshot();
          const boundary = 'herald-endless-body';
          const outcome = await streamWithoutEnd(boundary, head(boundary));
          expect(outcome.status).toBe(code === 'unsupported_media_type' ? 415 : 413);
          expect(JSON.parse(outcome.body)).toEqual({
            error: { code, message: expect.any(String) },
          });
          // Answered near the 51 MB cap (socket buffers hold a few MB more) ...
          expect(outcome.sentAtAnswer).toBeLessThan(FIFTY_MB + 16 * 1024 * 1024);
          // ... and the connection closed once the client had had time to read the answer.
          expect(outcome.cutAfterMs).toBeGreaterThanOrEqual(1_500);
          expect(outcome.cutAfterMs).toBeLessThan(10_000);
          await waitFor(async () => (await snapshot()).files.length === before.files.length);
          await expectNothingKept(before);
        },
      );

      it('a text file renamed .png and declared image/png: 415 unsupported_media_type', async () => {
        const before = await snapshot();
        const res = await upload()
          .attach('files', fixture('not-an-image.png'), {
            filename: 'not-an-image.png',
            contentType: 'image/png',
          })
          .expect(415);
        expect(res.body).toEqual({
          error: { code: 'unsupported_media_type', message: expect.any(String) },
        });
        await expectNothingKept(before);
      });

      it('an empty file: 415 unsupported_media_type', async () => {
        const before = await snapshot();
        const res = await upload()
          .attach('files', Buffer.alloc(0), { filename: 'empty.png', contentType: 'image/png' })
          .expect(415);
        expect(res.body.error.code).toBe('unsupported_media_type');
        await expectNothingKept(before);
      });

      it('a file in another field: 400 validation_failed', async () => {
        const before = await snapshot();
        const res = await upload().attach('file', fixture('sample.png'), 'a.png').expect(400);
        expect(res.body.error.code).toBe('validation_failed');
        expect(res.body.error.message).toContain('files');
        await expectNothingKept(before);
      });

      it('an extra text field: 400 validation_failed', async () => {
        const before = await snapshot();
        const res = await upload()
          .field('caption', 'hello')
          .attach('files', fixture('sample.png'), 'a.png')
          .expect(400);
        expect(res.body.error.code).toBe('validation_failed');
        await expectNothingKept(before);
      });

      it('a client that hangs up halfway: the partial file is removed, no row', async () => {
        const before = await snapshot();
        const boundary = 'herald-abort';
        const head = Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="cut.png"\r\n` +
            'Content-Type: image/png\r\n\r\n',
        );
        const req = httpRequest(`${baseUrl}${mediaPath()}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': String(10 * 1024 * 1024),
          },
        });
        req.on('error', () => undefined);
        // More than one multipart part, so that S3 has started an upload as well.
        req.write(Buffer.concat([head, PNG_SIGNATURE, Buffer.alloc(6 * 1024 * 1024)]));
        // Wait until the service has started writing the file, then hang up.
        await waitFor(() => t.media.writing(), 10_000);
        req.destroy();
        await waitFor(async () => (await t.media.files()).join() === before.files.join(), 10_000);
        await expectNothingKept(before);
      });

      it('a malformed multipart body: 400 validation_failed', async () => {
        const res = await upload()
          .set('Content-Type', 'multipart/form-data; boundary=xyz')
          .send(
            '--xyz\r\nContent-Disposition: form-data; name="files"; filename="a.png"\r\n\r\nabc',
          )
          .expect(400);
        expect(res.body.error.code).toBe('validation_failed');
      });

      it.each([
        ['text/plain', 'hello'],
        ['application/x-www-form-urlencoded', 'url=http%3A%2F%2Fexample.com%2Fa.png'],
        ['image/png', fixture('sample.png')],
      ])('a body of type %s: 415 unsupported_media_type', async (type, body) => {
        const before = await snapshot();
        const res = await upload().set('Content-Type', type).send(body).expect(415);
        expect(res.body.error.code).toBe('unsupported_media_type');
        await expectNothingKept(before);
      });

      it('no body at all: 415 unsupported_media_type', async () => {
        const res = await upload().expect(415);
        expect(res.body.error.code).toBe('unsupported_media_type');
      });
    });

    describe('access', () => {
      it('no key: 401 unauthorized', async () => {
        const res = await t.http
          .post(mediaPath())
          .attach('files', fixture('sample.png'), 'a.png')
          .expect(401);
        expect(res.body.error.code).toBe('unauthorized');
      });

      it('a key without media:write: 403 insufficient_scope, nothing stored', async () => {
        const before = await snapshot();
        const narrow = await make.apiKey(admin, { scopes: ['projects:read', 'posts:write'] });
        const res = await upload(narrow)
          .attach('files', fixture('sample.png'), 'a.png')
          .expect(403);
        expect(res.body.error.code).toBe('insufficient_scope');
        await expectNothingKept(before);
      });

      it('another user’s project and a non-integer id: 404 project_not_found', async () => {
        const stranger = await make.user('Stranger');
        const theirs = await make.project(stranger);
        for (const id of [String(theirs.id), 'abc']) {
          const res = await t.http
            .post(`/api/public/v1/projects/${id}/media`)
            .set('Authorization', `Bearer ${key}`)
            .attach('files', fixture('sample.png'), 'a.png')
            .expect(404);
          expect(res.body.error.code).toBe('project_not_found');
        }
      });

      it('an observer (no can_edit_content): 403 forbidden with that flag’s message; an editor may upload', async () => {
        const observer = await make.admin('Observer');
        const editor = await make.admin('Editor');
        await addMember(t, admin, project, observer, 'observer', onlyFlags('can_view_content'));
        await addMember(
          t,
          admin,
          project,
          editor,
          'editor',
          onlyFlags('can_view_content', 'can_edit_content'),
        );
        const before = await snapshot();
        const refused = await upload(await make.apiKey(observer))
          .attach('files', fixture('sample.png'), 'a.png')
          .expect(403);
        expect(refused.body).toEqual({
          error: { code: 'forbidden', message: 'Недостаточно прав для редактирования контента' },
        });
        await expectNothingKept(before);

        const accepted = await upload(await make.apiKey(editor))
          .attach('files', fixture('sample.png'), 'a.png')
          .expect(201);
        const { rows } = await t.db.query('SELECT uploaded_by_id FROM media_assets WHERE id = $1', [
          accepted.body.items[0].id,
        ]);
        expect(rows[0].uploaded_by_id).toBe(editor.id);
      });
    });

    describe('GET /media/<storage_path>', () => {
      function rawGet(path: string): Promise<{ status: number; body: string }> {
        return new Promise((resolve, reject) => {
          const req = httpRequest(`${baseUrl}${path}`, (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          });
          req.on('error', reject);
          req.end();
        });
      }

      it('an asset whose file is gone from storage: 404, not 500', async () => {
        const res = await upload().attach('files', fixture('sample.gif'), 'gone.gif').expect(201);
        const { storage_path: storagePath } = res.body.items[0] as { storage_path: string };
        expect((await rawGet(`/media/${storagePath}`)).status).toBe(200);
        await t.media.remove(storagePath);
        const gone = await rawGet(`/media/${storagePath}`);
        expect(gone.status).toBe(404);
        expect(JSON.parse(gone.body)).toEqual({
          error: { code: 'not_found', message: expect.any(String) },
        });
      });

      it('serves only stored assets: traversal, unknown paths and stray files are 404', async () => {
        // A file in the storage directory that no MediaAsset owns is never served.
        await t.media.write(`projects/${project.id}/stray.png`, fixture('sample.png'));
        writeFileSync(join(dirname(t.mediaDir), 'outside-secret.txt'), 'secret');

        for (const path of [
          `/media/projects/${project.id}/stray.png`,
          '/media/projects/1/2026/01/nope.png',
          '/media/../../etc/passwd',
          '/media/..%2f..%2fetc%2fpasswd',
          '/media/%2e%2e/%2e%2e/etc/passwd',
          `/media/projects/${project.id}/..%2f..%2f..%2foutside-secret.txt`,
          '/media/%2fetc%2fpasswd',
          '/media/projects%5c..%5c..%5cetc%5cpasswd',
          '/media/',
        ]) {
          const res = await rawGet(path);
          expect({ path, status: res.status }).toEqual({ path, status: 404 });
          expect(res.body).not.toContain('root:');
          expect(res.body).not.toContain('secret');
        }
      });
    });

    describe('MediaService, the API other modules use', () => {
      it('storeStream stores a stream with the same rules; findForProject scopes by project; openRead gives the bytes', async () => {
        const media = t.app.get(MediaService);
        const bytes = fixture('sample.webp');
        const asset = await media.storeStream(
          project.id,
          admin.id,
          Readable.from([bytes]),
          'ai.webp',
        );
        expect(asset).toMatchObject({
          projectId: project.id,
          type: 'image',
          mimeType: 'image/webp',
          sizeBytes: bytes.length,
          filename: 'ai.webp',
        });
        expect(media.toDto(asset).created_at).toMatch(MICROS);

        const other = await make.project(admin, 'Other');
        const foreign = await media.storeStream(other.id, admin.id, Readable.from([bytes]), null);
        expect(foreign.filename).toBe('file.webp');
        const found = await media.findForProject(project.id, [foreign.id, asset.id, 999999]);
        expect(found.map((a) => a.id)).toEqual([asset.id]);

        const read = await media.openRead(asset);
        const chunks: Buffer[] = [];
        for await (const chunk of read) chunks.push(chunk as Buffer);
        expect(Buffer.concat(chunks).equals(bytes)).toBe(true);

        const before = await snapshot();
        await expect(
          media.storeStream(
            project.id,
            admin.id,
            Readable.from([Buffer.from('plain text')]),
            'x.png',
          ),
        ).rejects.toMatchObject({ code: 'unsupported_media_type' });
        await expect(
          media.storeStream(
            project.id,
            admin.id,
            Readable.from(generatedBytes(PNG_SIGNATURE, FIFTY_MB + 1)),
            'big.png',
          ),
        ).rejects.toMatchObject({ code: 'file_too_large' });
        await expectNothingKept(before);
        expect(await t.media.exists(asset.storagePath)).toBe(true);
      });
    });

    it('documents both request forms and every error answer in OpenAPI', async () => {
      const res = await t.http.get('/api/public/v1/openapi.json').expect(200);
      const post = res.body.paths['/api/public/v1/projects/{projectId}/media'].post;
      expect(Object.keys(post.requestBody.content).sort()).toEqual([
        'application/json',
        'multipart/form-data',
      ]);
      expect(Object.keys(post.responses).sort()).toEqual(
        [
          '201',
          '400',
          '401',
          '403',
          '404',
          '409',
          '413',
          '415',
          '422',
          '429',
          '500',
          '502',
          '503',
          '504',
        ].sort(),
      );
      expect(post.responses['400'].description).toContain('too_many_files');
      expect(post.responses['400'].description).toContain('url_not_allowed');
      expect(post.responses['413'].description).toContain('file_too_large');
    });
  },
);

describe('Partial files a crashed process left behind', () => {
  it('are removed at the next start once a day old; younger ones may be uploads in progress', async () => {
    const mediaDir = mkdtempSync(join(tmpdir(), 'herald-crashed-'));
    const incoming = join(mediaDir, INCOMING_DIR);
    mkdirSync(incoming);
    const twoDaysAgo = new Date(Date.now() - 2 * STALE_PARTIAL_MS);
    writeFileSync(join(incoming, 'abandoned.part'), 'half a file');
    utimesSync(join(incoming, 'abandoned.part'), twoDaysAgo, twoDaysAgo);
    writeFileSync(join(incoming, 'in-progress.part'), 'still arriving');
    const t = await startTestApp({ MEDIA_STORAGE_DIR: mediaDir });
    try {
      await waitFor(() => !existsSync(join(incoming, 'abandoned.part')));
      expect(filesUnder(mediaDir)).toEqual([join(INCOMING_DIR, 'in-progress.part')]);
    } finally {
      await t.close();
      rmSync(mediaDir, { recursive: true, force: true });
    }
  });
});

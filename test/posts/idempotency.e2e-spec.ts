import { IdempotencyService } from '../../src/http/idempotency/idempotency.service';
import { Factory, SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { filesUnder, fixture } from '../support/factories/media-helpers';
import { waitForPostStatus } from '../support/publication';
import { RemoteFileServer } from '../support/remote-file-server';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/waits';

/** Idempotency-Key on every public POST (docs/api-rules.md#idempotency-keys). */
describe('Idempotency-Key', () => {
  let telegram: TelegramStandIn;
  let files: RemoteFileServer;
  let t: TestApp;
  let make: Factory;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;
  let channel: TestChannel;
  /** Answers of /slow.png wait for this to be called. */
  let releaseSlow: (() => void) | undefined;
  let slowFails = 0;
  const PNG = fixture('sample.png');

  beforeAll(async () => {
    telegram = await new TelegramStandIn().start();
    files = new RemoteFileServer('127.0.0.2')
      .route('/slow.png', (_req, res) => {
        releaseSlow = () => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      })
      .route('/flaky.png', (_req, res) => {
        if (slowFails-- > 0) res.writeHead(500).end('down');
        else res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      });
    await files.start();
    t = await startTestApp({
      TELEGRAM_API_BASE_URL: telegram.url,
      MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.2/32',
      RATE_LIMIT_CREATE_POST: '10000',
      RATE_LIMIT_PUBLISH: '10000',
      RATE_LIMIT_UPLOAD: '10000',
      TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '100000',
    });
    make = new Factory(t, telegram);
    ({ owner, project, key } = await make.owner('Idempotency'));
    channel = await make.channel(owner, (await make.telegramAccount(owner, project)).id);
  });

  afterAll(async () => {
    await t?.close();
    await files?.stop();
    await telegram?.stop();
  });

  let seq = 0;
  const newKey = () => `key-${++seq}-${Date.now()}`;
  const url = (rest: string) => `/api/public/v1/projects/${project.id}${rest}`;
  const post = (app: TestApp, path: string, idempotencyKey?: string, apiKey = key) => {
    const req = app.http.post(url(path)).set('Authorization', `Bearer ${apiKey}`);
    return idempotencyKey === undefined ? req : req.set('Idempotency-Key', idempotencyKey);
  };
  const postsWithText = async (text: string) =>
    (await t.db.query('SELECT id FROM posts WHERE text = $1', [text])).rowCount;
  const mediaRows = async () =>
    Number((await t.db.query('SELECT count(*) FROM media_assets')).rows[0].count);
  const expectError = (
    res: { status: number; body: { error?: { code: string } } },
    status: number,
    code: string,
  ) => expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });

  /** A multipart body with a fixed boundary, so that a retry sends the very same bytes. */
  const multipart = (file: Buffer, name = 'a.png') =>
    Buffer.concat([
      Buffer.from(
        `--fixedboundary\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\n` +
          'Content-Type: image/png\r\n\r\n',
      ),
      file,
      Buffer.from('\r\n--fixedboundary--\r\n'),
    ]);
  const upload = (body: Buffer, idempotencyKey: string) =>
    post(t, '/media', idempotencyKey)
      .set('Content-Type', 'multipart/form-data; boundary=fixedboundary')
      .send(body);

  describe('POST posts', () => {
    it('replays the first answer for the same request: same status and body, Idempotent-Replayed, one post', async () => {
      const k = newKey();
      const body = { text: 'Once only' };
      const first = await post(t, '/posts', k).send(body).expect(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const again = await post(t, '/posts', k).send(body).expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await postsWithText('Once only')).toBe(1);
      // Every request counts against the rate limit, replays too.
      expect(Number(again.headers['x-ratelimit-remaining'])).toBe(
        Number(first.headers['x-ratelimit-remaining']) - 1,
      );
    });

    it('without the header every request runs', async () => {
      await post(t, '/posts').send({ text: 'Twice' }).expect(201);
      await post(t, '/posts').send({ text: 'Twice' }).expect(201);
      expect(await postsWithText('Twice')).toBe(2);
    });

    it('422 idempotency_key_reused for another body (byte for byte) or another path', async () => {
      const k = newKey();
      await post(t, '/posts', k).send({ text: 'Original' }).expect(201);
      expectError(
        await post(t, '/posts', k).send({ text: 'Changed' }),
        422,
        'idempotency_key_reused',
      );
      // The same JSON value written differently is another body.
      const spaced = await post(t, '/posts', k)
        .set('Content-Type', 'application/json')
        .send('{ "text": "Original" }');
      expectError(spaced, 422, 'idempotency_key_reused');
      const id = (await post(t, '/posts').send({ text: 'Target' }).expect(201)).body.id;
      expectError(
        await post(t, `/posts/${id}/publish`, k).send({ text: 'Original' }),
        422,
        'idempotency_key_reused',
      );
      expect(await postsWithText('Changed')).toBe(0);
    });

    it('keeps 4xx answers: a refused request is answered the same again', async () => {
      const k = newKey();
      const bad = { text: 'x', targets: [{ channel_ref: 'telegram:1:-5' }] };
      const first = await post(t, '/posts', k).send(bad);
      expectError(first, 400, 'channel_not_found');
      const again = await post(t, '/posts', k).send(bad);
      expect(again.status).toBe(400);
      expect(again.body).toEqual(first.body);
      expect(again.headers['idempotent-replayed']).toBe('true');
    });

    it('keys belong to one API key: another key with the same Idempotency-Key runs anew', async () => {
      const k = newKey();
      const otherKey = await make.apiKey(owner);
      await post(t, '/posts', k).send({ text: 'Per key' }).expect(201);
      const res = await post(t, '/posts', k, otherKey).send({ text: 'Per key' }).expect(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(await postsWithText('Per key')).toBe(2);
    });

    it.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
      ['a non-ASCII character', 'clé'],
      ['a control character', 'a\tb'],
    ])('400 validation_failed for a key that is %s; nothing is created', async (_, value) => {
      const res = await post(t, '/posts', value).send({ text: 'Bad key' });
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.message).toContain('Idempotency-Key');
      expect(await postsWithText('Bad key')).toBe(0);
    });

    it('accepts 255 printable characters', async () => {
      const k = `${' !~'.repeat(84)}abc`;
      expect(k).toHaveLength(255);
      await post(t, '/posts', k).send({ text: 'Long key' }).expect(201);
      expect(
        (await post(t, '/posts', k).send({ text: 'Long key' })).headers['idempotent-replayed'],
      ).toBe('true');
    });

    it('is checked after key, scope, project and flag', async () => {
      const k = newKey();
      await post(t, '/posts', k).send({ text: 'Guarded' }).expect(201);
      const readOnly = await make.apiKey(owner, { scopes: ['posts:read'] });
      expectError(
        await post(t, '/posts', k, readOnly).send({ text: 'Guarded' }),
        403,
        'insufficient_scope',
      );
      const res = await t.http
        .post(url('/posts'))
        .set('Idempotency-Key', k)
        .send({ text: 'Guarded' });
      expectError(res, 401, 'unauthorized');
      const stranger = await make.apiKey(await make.admin('Stranger'));
      expectError(
        await post(t, '/posts', k, stranger).send({ text: 'Guarded' }),
        404,
        'project_not_found',
      );
    });

    it('ten concurrent identical creates with one key make exactly one post', async () => {
      const k = newKey();
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => post(t, '/posts', k).send({ text: 'Concurrent' })),
      );
      expect(await postsWithText('Concurrent')).toBe(1);
      const created = answers.filter((a) => a.status === 201);
      const busy = answers.filter((a) => a.status === 409);
      expect(created.length + busy.length).toBe(10);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
      for (const b of busy) expect(b.body.error.code).toBe('idempotency_key_in_use');
      expect(created.filter((a) => a.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    });

    it('concurrent creates with their own keys each run once and each replays its own answer', async () => {
      // Claims and answers of concurrent requests share statements: each must stay its own.
      const keys = Array.from({ length: 20 }, () => newKey());
      const first = await Promise.all(
        keys.map((k, i) => post(t, '/posts', k).send({ text: `Batched ${i}` })),
      );
      expect(first.map((a) => a.status)).toEqual(keys.map(() => 201));
      const again = await Promise.all(
        keys.map((k, i) => post(t, '/posts', k).send({ text: `Batched ${i}` })),
      );
      expect(again.map((a) => a.headers['idempotent-replayed'])).toEqual(keys.map(() => 'true'));
      expect(again.map((a) => a.body)).toEqual(first.map((a) => a.body));
      expect(new Set(first.map((a) => a.body.id)).size).toBe(keys.length);
      for (let i = 0; i < keys.length; i++) expect(await postsWithText(`Batched ${i}`)).toBe(1);
    });

    it('after 24 hours the key is free again and expired keys are purged', async () => {
      const k = newKey();
      await post(t, '/posts', k).send({ text: 'Expires' }).expect(201);
      await t.db.query(
        `UPDATE idempotency_keys SET created_at = now() - interval '25 hours',
                expires_at = now() - interval '1 hour' WHERE key = $1`,
        [k],
      );
      const res = await post(t, '/posts', k).send({ text: 'Expires' }).expect(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(await postsWithText('Expires')).toBe(2);
      // The claim renewed the key: a retry now replays the second post.
      const replay = await post(t, '/posts', k).send({ text: 'Expires' }).expect(201);
      expect(replay.body.id).toBe(res.body.id);

      const stale = newKey();
      await post(t, '/posts', stale).send({ text: 'Purged' }).expect(201);
      await t.db.query(
        `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`,
        [stale],
      );
      expect(await t.app.get(IdempotencyService).purgeExpired()).toBeGreaterThanOrEqual(1);
      const left = await t.db.query('SELECT key FROM idempotency_keys WHERE key = ANY($1)', [
        [k, stale],
      ]);
      expect(left.rows).toEqual([{ key: k }]);
    });
  });

  describe('POST publish', () => {
    it('a replayed publish is answered 202 again and sends nothing more', async () => {
      const id = (await post(t, '/posts').send({ text: 'Publish once' }).expect(201)).body.id;
      const k = newKey();
      const body = { targets: [{ channel_ref: channel.id }] };
      const first = await post(t, `/posts/${id}/publish`, k).send(body).expect(202);
      await waitForPostStatus(t, id);
      const again = await post(t, `/posts/${id}/publish`, k).send(body).expect(202);
      expect(again.body).toEqual(first.body);
      expect(again.headers['idempotent-replayed']).toBe('true');
      // Without the key, the same call is refused: the post is published.
      expectError(await post(t, `/posts/${id}/publish`).send(body), 409, 'invalid_state');
      expect(
        telegram.callsOf('sendMessage').filter((c) => c.params.text === 'Publish once'),
      ).toHaveLength(1);
    });
  });

  describe('POST media', () => {
    it('multipart: the same bytes are replayed without storing the file again; another file is 422 and leaves nothing', async () => {
      const k = newKey();
      const body = multipart(PNG);
      const rowsBefore = await mediaRows();
      const first = await upload(body, k).expect(201);
      const stored = filesUnder(t.mediaDir);
      const again = await upload(body, k).expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await mediaRows()).toBe(rowsBefore + 1);
      expect(filesUnder(t.mediaDir)).toEqual(stored);

      const other = await upload(multipart(fixture('sample.gif'), 'b.gif'), k);
      expectError(other, 422, 'idempotency_key_reused');
      expect(await mediaRows()).toBe(rowsBefore + 1);
      expect(filesUnder(t.mediaDir)).toEqual(stored);
    });

    it('by URL: 409 idempotency_key_in_use while the first runs, also on a second instance; then the replay', async () => {
      const second = await startTestApp(
        { MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.2/32', RATE_LIMIT_UPLOAD: '10000' },
        { shareWith: t },
      );
      try {
        const k = newKey();
        const body = { url: files.url('/slow.png') };
        const rowsBefore = await mediaRows();
        releaseSlow = undefined;
        const first = post(t, '/media', k)
          .send(body)
          .then((res) => res);
        await waitFor(() => releaseSlow !== undefined, 10_000);
        expectError(await post(second, '/media', k).send(body), 409, 'idempotency_key_in_use');
        expectError(await post(t, '/media', k).send(body), 409, 'idempotency_key_in_use');
        expectError(
          await post(second, '/media', k).send({ url: files.url('/other.png') }),
          422,
          'idempotency_key_reused',
        );
        releaseSlow!();
        const done = await first;
        expect(done.status).toBe(201);
        const replay = await post(second, '/media', k).send(body).expect(201);
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect(replay.body).toEqual(done.body);
        expect(await mediaRows()).toBe(rowsBefore + 1);
        expect(files.hitsOf('/slow.png')).toBe(1);
      } finally {
        await second.close();
      }
    });

    it('a 5xx answer is not kept: the retry runs anew', async () => {
      const k = newKey();
      const body = { url: files.url('/flaky.png') };
      slowFails = 1;
      expectError(await post(t, '/media', k).send(body), 502, 'download_failed');
      const retry = await post(t, '/media', k).send(body).expect(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(files.hitsOf('/flaky.png')).toBe(2);
    });
  });

  describe('OpenAPI', () => {
    it('documents the header and its answers on POST media, posts and publish', async () => {
      const doc = (await t.http.get('/api/public/v1/openapi.json').expect(200)).body;
      const base = '/api/public/v1/projects/{projectId}';
      for (const path of [`${base}/media`, `${base}/posts`, `${base}/posts/{postId}/publish`]) {
        const op = doc.paths[path].post as {
          parameters: { name: string; in: string }[];
          responses: Record<string, { description: string }>;
        };
        expect({
          path,
          header: op.parameters.some((p) => p.name === 'Idempotency-Key' && p.in === 'header'),
        }).toEqual({ path, header: true });
        expect(op.responses['409'].description).toContain('idempotency_key_in_use');
        expect(op.responses['422'].description).toContain('idempotency_key_reused');
      }
    });
  });
});

import { Factory, SignedInUser, TestProject } from '../support/factories/factories';
import { startTestApp, TestApp } from '../support/test-app';
import { sleep, waitFor } from '../support/waits';

describe('API keys and the public API guards', () => {
  let t: TestApp;
  let make: Factory;
  let admin: SignedInUser;
  let project: TestProject;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    make = new Factory(t);
    admin = await make.admin();
    project = await make.project(admin);
    key = await make.apiKey(admin);
  });

  afterAll(() => t?.close());

  const projects = (authorization?: string) => {
    const req = t.http.get('/api/public/v1/projects');
    return authorization === undefined ? req : req.set('Authorization', authorization);
  };

  const createKey = (body: Record<string, unknown>, user = admin) =>
    t.http
      .post('/api/api-keys')
      .set('Authorization', user.auth)
      .send({ name: 'k', ...body });

  describe('creation', () => {
    it('has the shape hrld_live_<16>.<32+> and is shown once with its fields', async () => {
      const res = await createKey({ name: 'CMS', scopes: ['projects:read', 'usage:read'] }).expect(
        201,
      );
      expect(res.body.key).toMatch(/^hrld_live_[A-Za-z0-9]{16}\.[A-Za-z0-9]{32,}$/);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'CMS',
        key: res.body.key,
        prefix: res.body.key.split('.')[0],
        mode: 'live',
        scopes: ['projects:read', 'usage:read'],
        expires_at: null,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/),
        last_used_at: null,
        revoked_at: null,
      });
      const list = await t.http.get('/api/api-keys').set('Authorization', admin.auth).expect(200);
      expect(JSON.stringify(list.body)).not.toContain(res.body.key.split('.')[1]);
      expect(list.body.items.find((k: { id: number }) => k.id === res.body.id)).not.toHaveProperty(
        'key',
      );
    });

    it('gets every scope when none is named', async () => {
      const res = await createKey({}).expect(201);
      expect(res.body.scopes).toEqual([
        'projects:read',
        'media:write',
        'posts:read',
        'posts:write',
        'posts:publish',
        'usage:read',
        'accounts:write',
        'webhooks:manage',
      ]);
    });

    it('stores only the public part and a hash of the secret', async () => {
      const res = await createKey({}).expect(201);
      const [publicPart, secret] = res.body.key.slice('hrld_live_'.length).split('.');
      const { rows } = await t.db.query('SELECT * FROM api_keys WHERE id = $1', [res.body.id]);
      expect(rows[0].public_id).toBe(publicPart);
      expect(rows[0].secret_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(rows)).not.toContain(secret);
    });

    it('is for administrators only', async () => {
      const plain = await make.user();
      const res = await createKey({}, plain).expect(403);
      expect(res.body.error.code).toBe('forbidden');
      await t.http.get('/api/api-keys').set('Authorization', plain.auth).expect(403);
    });

    it.each([
      ['an expiry in the past', { expires_at: '2020-01-01T00:00:00Z' }],
      ['an expiry that is not a date', { expires_at: 'tomorrow' }],
      ['an unknown scope', { scopes: ['posts:delete'] }],
      ['a missing name', { name: undefined }],
      ['an unknown field', { colour: 'red' }],
    ])('refuses %s with 400 validation_failed', async (_label, body) => {
      const res = await createKey(body).expect(400);
      expect(res.body.error.code).toBe('validation_failed');
    });

    it('accepts an expiry with an offset', async () => {
      const res = await createKey({ expires_at: '2099-01-01T03:00:00+03:00' }).expect(201);
      expect(res.body.expires_at).toBe('2099-01-01T00:00:00.000000');
    });
  });

  describe('401 unauthorized, one message for every failure', () => {
    let revoked: string;
    let expired: string;

    beforeAll(async () => {
      revoked = await make.apiKey(admin);
      const list = await t.http.get('/api/api-keys').set('Authorization', admin.auth).expect(200);
      const id = list.body.items.find((k: { prefix: string }) =>
        revoked.startsWith(`${k.prefix}.`),
      ).id;
      await t.http.delete(`/api/api-keys/${id}`).set('Authorization', admin.auth).expect(204);
      expired = await make.apiKey(admin, {
        expires_at: new Date(Date.now() + 60_000).toISOString(),
      });
      await t.db.query(
        `UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE public_id = $1`,
        [expired.slice(10, 26)],
      );
    });

    const cases: [string, () => string | undefined][] = [
      ['a missing header', () => undefined],
      ['a wrong scheme', () => `Basic ${key}`],
      ['a bare key without scheme', () => key],
      ['a malformed key', () => 'Bearer hrld_live_short.secret'],
      ['a test-mode key', () => `Bearer ${key.replace('hrld_live_', 'hrld_test_')}`],
      ['an unknown public part', () => `Bearer hrld_live_AAAAAAAAAAAAAAAA.${key.split('.')[1]}`],
      ['a wrong secret', () => `Bearer ${key.split('.')[0]}.${'x'.repeat(40)}`],
      ['a revoked key', () => `Bearer ${revoked}`],
      ['an expired key', () => `Bearer ${expired}`],
      ['a session token instead of a key', () => admin.auth],
    ];

    it.each(cases)('answers %s with 401 unauthorized', async (_label, header) => {
      const res = await projects(header()).expect(401);
      expect(res.body).toEqual({
        error: { code: 'unauthorized', message: 'Missing or invalid credentials' },
      });
    });

    it('still accepts the valid key', async () => {
      await projects(`Bearer ${key}`).expect(200);
      await projects(`bearer ${key}`).expect(200);
    });
  });

  describe('scopes and the order of checks', () => {
    it('answers 403 insufficient_scope for a key lacking the route’s scope', async () => {
      const usageOnly = await make.apiKey(admin, { scopes: ['usage:read'] });
      const res = await projects(`Bearer ${usageOnly}`).expect(403);
      expect(res.body.error.code).toBe('insufficient_scope');
      await t.http
        .get('/api/public/v1/usage')
        .set('Authorization', `Bearer ${usageOnly}`)
        .expect(200);
    });

    it('checks the scope before the project (403 before 404)', async () => {
      const usageOnly = await make.apiKey(admin, { scopes: ['usage:read'] });
      const res = await t.http
        .get('/api/public/v1/projects/999999/channels')
        .set('Authorization', `Bearer ${usageOnly}`)
        .expect(403);
      expect(res.body.error.code).toBe('insufficient_scope');
    });

    it('checks the key before anything else (401 before 404)', async () => {
      const res = await t.http.get('/api/public/v1/projects/abc/channels').expect(401);
      expect(res.body.error.code).toBe('unauthorized');
    });

    it('answers 404 project_not_found for another user’s project', async () => {
      const other = await make.user();
      const theirs = await make.project(other);
      const res = await t.http
        .get(`/api/public/v1/projects/${theirs.id}/channels`)
        .set('Authorization', `Bearer ${key}`)
        .expect(404);
      expect(res.body.error.code).toBe('project_not_found');
      await t.http
        .get(`/api/public/v1/projects/${project.id}/channels`)
        .set('Authorization', `Bearer ${key}`)
        .expect(200);
    });
  });

  describe('last_used_at', () => {
    it('is written on use, and at most once a minute', async () => {
      const fresh = await make.apiKey(admin);
      const publicId = fresh.slice(10, 26);
      const read = async () =>
        (
          await t.db.query('SELECT last_used_at::text AS at FROM api_keys WHERE public_id = $1', [
            publicId,
          ])
        ).rows[0].at;
      expect(await read()).toBeNull();
      await projects(`Bearer ${fresh}`).expect(200);
      await waitFor(async () => (await read()) !== null);
      const first = await read();
      await projects(`Bearer ${fresh}`).expect(200);
      await projects(`Bearer ${fresh}`).expect(200);
      await sleep(100);
      expect(await read()).toBe(first);
    });
  });
});

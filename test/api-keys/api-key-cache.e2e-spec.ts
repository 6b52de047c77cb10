import { ApiKeyCache, KeyRecord } from '../../src/domains/api-keys/api-key-cache';
import { Factory, SignedInUser } from '../support/factories/factories';
import {
  instanceWithOwnRedis,
  lookups as lookupsOf,
  WITH_CACHES,
} from '../support/cache-instances';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/waits';

/**
 * API keys authenticated from each process's memory (src/domains/api-keys/api-key-cache.ts): a revocation
 * made through any instance stops the key on every instance; an instance that cannot hear
 * revocations reads every key from the database.
 */
describe('API keys remembered by each API process', () => {
  let a: TestApp;
  let b: TestApp;
  let make: Factory;
  let admin: SignedInUser;

  beforeAll(async () => {
    a = await startTestApp(WITH_CACHES);
    b = await startTestApp(WITH_CACHES, { shareWith: a });
    make = new Factory(a);
    admin = await make.admin();
  });

  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const projects = (app: TestApp, key: string) =>
    app.http.get('/api/public/v1/projects').set('Authorization', `Bearer ${key}`);

  const lookups = (app: TestApp, source: 'memory' | 'database') =>
    lookupsOf(app, 'herald_api_key_lookups_total', source);

  /** Uses the key on `app` until one request was authenticated from memory. */
  const remembered = (app: TestApp, key: string) =>
    waitFor(async () => {
      const before = await lookups(app, 'memory');
      await projects(app, key).expect(200);
      return (await lookups(app, 'memory')) > before;
    });

  const revoke = async (app: TestApp, key: string) => {
    const list = await app.http.get('/api/api-keys').set('Authorization', admin.auth).expect(200);
    const { id } = list.body.items.find((k: { prefix: string }) => key.startsWith(`${k.prefix}.`));
    await app.http.delete(`/api/api-keys/${id}`).set('Authorization', admin.auth).expect(204);
  };

  const refusedBy = (app: TestApp, key: string) =>
    waitFor(async () => (await projects(app, key)).status === 401, 3_000);

  it('a key revoked through one instance is refused by that one at once and by the others as soon as they hear it', async () => {
    const key = await make.apiKey(admin);
    const kept = await make.apiKey(admin);
    for (const app of [a, b]) {
      await remembered(app, key);
      await remembered(app, kept);
    }

    await revoke(a, key);

    await projects(a, key).expect(401);
    await refusedBy(b, key);
    await projects(b, kept).expect(200);
    await projects(a, kept).expect(200);
  });

  it('remembers a key: a revocation written to the database by hand is not seen while it is remembered', async () => {
    const key = await make.apiKey(admin);
    await remembered(b, key);

    await a.db.query(`UPDATE api_keys SET revoked_at = now() WHERE public_id = $1`, [
      key.slice(10, 26),
    ]);

    const before = await lookups(b, 'database');
    await projects(b, key).expect(200);
    expect(await lookups(b, 'database')).toBe(before);
    // The instance that never used it reads the database.
    await projects(a, key).expect(401);
  });

  it('with API_KEY_CACHE_MS=0 every request reads the database', async () => {
    const c = await startTestApp({ ...WITH_CACHES, API_KEY_CACHE_MS: '0' }, { shareWith: a });
    try {
      const key = await make.apiKey(admin);
      for (let i = 0; i < 3; i++) await projects(c, key).expect(200);
      expect(await lookups(c, 'memory')).toBe(0);

      await a.db.query(`UPDATE api_keys SET revoked_at = now() WHERE public_id = $1`, [
        key.slice(10, 26),
      ]);
      await projects(c, key).expect(401);
    } finally {
      await c.close();
    }
  });

  describe('an instance whose Redis goes away', () => {
    const cut = instanceWithOwnRedis(() => a);

    it('forgets every key and reads the database while it cannot hear revocations, then listens again', async () => {
      const key = await make.apiKey(admin);
      await remembered(cut.app, key);

      cut.redis.down();
      // Revoked behind its back: only a database read can refuse it now.
      await a.db.query(`UPDATE api_keys SET revoked_at = now() WHERE public_id = $1`, [
        key.slice(10, 26),
      ]);
      await refusedBy(cut.app, key);

      // A revocation it cannot announce is still stored and answered 204.
      const unannounced = await make.apiKey(admin);
      await projects(cut.app, unannounced).expect(200);
      await revoke(cut.app, unannounced);
      await projects(cut.app, unannounced).expect(401);
      await projects(a, unannounced).expect(401);

      cut.redis.up = true;
      const next = await make.apiKey(admin);
      await remembered(cut.app, next);
      await revoke(a, next);
      await refusedBy(cut.app, next);
    });
  });

  it('does not remember a row read before a revocation was heard (it may predate it)', async () => {
    const cache = b.app.get(ApiKeyCache);
    const key = await make.apiKey(admin);
    const record = keyRecord('AAAAAAAAAAAAAAAA', null);
    await remembered(b, key);

    const version = cache.version();
    await revoke(a, key);
    await waitFor(() => cache.version() !== version);
    cache.put(version, record);
    expect(cache.get(record.public_id)).toBeUndefined();

    cache.put(cache.version(), record);
    expect(cache.get(record.public_id)).toBe(record);
  });

  it('never uses a remembered key past its own expiry', () => {
    const cache = b.app.get(ApiKeyCache);
    const record = keyRecord('BBBBBBBBBBBBBBBB', Date.now() - 1);
    cache.put(cache.version(), record);
    expect(cache.get(record.public_id)).toBeUndefined();
  });
});

/** A row as the key lookup returns it, for the cache's own rules. */
function keyRecord(publicId: string, expiresAtMs: number | null): KeyRecord {
  return {
    id: 1,
    public_id: publicId,
    secret_hash: 'x',
    scopes: [],
    mode: 'live',
    user_id: 1,
    email: 'a@example.com',
    name: 'A',
    is_admin: false,
    is_operator: false,
    expires_at_ms: expiresAtMs,
  };
}

import type { Response } from 'supertest';
import { AiStandIn } from '../support/stand-ins/ai-stand-in';
import { Factory, SignedInUser } from '../support/factories/factories';
import { startTestApp, TestApp } from '../support/test-app';
import { sleep } from '../support/waits';

const PASSWORD = 'correct horse battery';
const RATE_LIMITED = { error: { code: 'rate_limit_exceeded', message: expect.any(String) } };

let address = 0;
/** A client address of its own for each caller (X-Forwarded-For from loopback is trusted). */
const newAddress = () => `198.51.100.${++address}`;

function login(app: TestApp, email: string, password: string, from: string) {
  return app.http.post('/api/auth/login').set('X-Forwarded-For', from).send({ email, password });
}

function expectRefused(res: Response, windowSeconds: number): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual(RATE_LIMITED);
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

describe('Password sign-in limits, shared by every instance', () => {
  const WINDOW_MS = 3_000;
  let first: TestApp;
  let second: TestApp;
  let make: Factory;

  beforeAll(async () => {
    const env = {
      SIGNIN_WINDOW_MS: String(WINDOW_MS),
      SIGNIN_FAILURES_PER_ACCOUNT: '3',
      SIGNIN_FAILURES_PER_ADDRESS: '5',
    };
    first = await startTestApp(env);
    second = await startTestApp(env, { shareWith: first });
    make = new Factory(first);
  });

  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('per account: past the failures allowed, the right password is refused from any address until the window ends', async () => {
    const user = await make.user();
    const started = Date.now();
    await login(first, user.email, 'wrong one', newAddress()).expect(401);
    await login(second, user.email, 'wrong two', newAddress()).expect(401);
    await login(first, user.email.toUpperCase(), 'wrong three', newAddress()).expect(401);

    expectRefused(await login(second, user.email, PASSWORD, newAddress()), WINDOW_MS / 1000);
    expectRefused(await login(first, user.email, 'wrong four', newAddress()), WINDOW_MS / 1000);
    // The console's sign-in form counts the same failures.
    const form = await first.http.get('/admin/login').expect(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)?.[1] as string;
    const console = await first.http
      .post('/admin/login')
      .set('Cookie', form.headers['set-cookie'] as unknown as string[])
      .set('X-Forwarded-For', newAddress())
      .type('form')
      .send({ email: user.email, password: PASSWORD, csrf });
    expect(console.status).toBe(429);
    expect(console.headers['content-type']).toMatch(/^text\/html/);
    expect(console.text).toContain('Too many failed sign-ins');
    expect(Number(console.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    // Another account is not affected.
    const other = await make.user();
    await login(second, other.email, PASSWORD, newAddress()).expect(200);

    await sleep(Math.max(0, started + WINDOW_MS + 200 - Date.now()));
    const after = await login(second, user.email, PASSWORD, newAddress()).expect(200);
    expect(after.body.user.email).toBe(user.email);
  });

  it('per address: failures for many accounts from one address close it, other addresses stay open', async () => {
    const attacker = newAddress();
    const users = await Promise.all([1, 2, 3, 4, 5, 6].map(() => make.user()));
    for (const [i, user] of users.slice(0, 5).entries())
      await login(i % 2 ? first : second, user.email, 'guess', attacker).expect(401);
    expectRefused(await login(first, users[5].email, PASSWORD, attacker), WINDOW_MS / 1000);
    // No one's account was locked by the attacker's address.
    await login(second, users[5].email, PASSWORD, newAddress()).expect(200);
    await login(first, users[0].email, PASSWORD, newAddress()).expect(200);
  });

  it('attempts sent at the same moment never get past the limit', async () => {
    const user = await make.user();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        login(i % 2 ? first : second, user.email, `guess ${i}`, newAddress()),
      ),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(3).fill(401), ...Array(7).fill(429)]);
  });
});

describe('Registration limit, shared by every instance', () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    first = await startTestApp({ REGISTRATIONS_PER_ADDRESS_PER_HOUR: '2' });
    second = await startTestApp({ REGISTRATIONS_PER_ADDRESS_PER_HOUR: '2' }, { shareWith: first });
  });

  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('registration: at most the allowed number per address and hour', async () => {
    const from = newAddress();
    const register = (app: TestApp, n: number, ip = from) =>
      app.http
        .post('/api/auth/register')
        .set('X-Forwarded-For', ip)
        .send({ email: `limited${n}.${process.pid}@example.com`, password: PASSWORD, name: 'R' });
    await register(first, 1).expect(201);
    await register(second, 2).expect(201);
    expectRefused(await register(first, 3), 3600);
    const { rows } = await first.db.query(`SELECT count(*)::int AS n FROM users WHERE email = $1`, [
      `limited3.${process.pid}@example.com`,
    ]);
    expect(rows[0].n).toBe(0);
    await register(second, 4, newAddress()).expect(201);
  });
});

describe('Passwords and sessions', () => {
  let t: TestApp;
  let make: Factory;

  beforeAll(async () => {
    t = await startTestApp();
    make = new Factory(t);
  });

  afterAll(() => t?.close());

  const me = (user: { auth: string }) => t.http.get('/api/auth/me').set('Authorization', user.auth);
  const signIn = async (email: string, password = PASSWORD) => {
    const res = await t.http.post('/api/auth/login').send({ email, password }).expect(200);
    return { auth: `Bearer ${res.body.token as string}` };
  };

  it('changing the password ends every other session, and needs the current password', async () => {
    const user = await make.user();
    const laptop = await signIn(user.email);
    const phone = await signIn(user.email);

    const wrong = await t.http
      .post('/api/auth/password')
      .set('Authorization', laptop.auth)
      .send({ current_password: 'not it at all', new_password: 'a brand new secret' })
      .expect(403);
    expect(wrong.body.error.code).toBe('forbidden');
    await me(phone).expect(200);

    await t.http
      .post('/api/auth/password')
      .set('Authorization', laptop.auth)
      .send({ current_password: PASSWORD, new_password: 'a brand new secret' })
      .expect(204);
    await me(laptop).expect(200);
    await me(phone).expect(401);
    await me(user).expect(401);
    await t.http
      .post('/api/auth/login')
      .send({ email: user.email, password: PASSWORD })
      .expect(401);
    await signIn(user.email, 'a brand new secret');
  });

  it('refuses a new password shorter than 8 characters', async () => {
    const user = await make.user();
    const res = await t.http
      .post('/api/auth/password')
      .set('Authorization', user.auth)
      .send({ current_password: PASSWORD, new_password: 'short' })
      .expect(400);
    expect(res.body.error.code).toBe('validation_failed');
    await signIn(user.email);
  });

  it('signing out everywhere ends every session of the user, and no one else’s', async () => {
    const user = await make.user();
    const other = await make.user();
    const second = await signIn(user.email);
    await t.http.post('/api/auth/logout-all').set('Authorization', user.auth).expect(204);
    await me(user).expect(401);
    await me(second).expect(401);
    await me(other).expect(200);
  });

  it('a session unused for seven days ends; one used within them goes on', async () => {
    const idle = await make.user();
    const busy = await make.user();
    await t.db.query(
      `UPDATE sessions SET last_used_at = now() - interval '7 days 1 minute'
        WHERE user_id = $1`,
      [idle.id],
    );
    await t.db.query(
      `UPDATE sessions SET last_used_at = now() - interval '6 days 23 hours' WHERE user_id = $1`,
      [busy.id],
    );
    await me(idle).expect(401);
    await me(busy).expect(200);
    // Its use was noted, so the week starts again.
    const { rows } = await t.db.query(
      `SELECT last_used_at > now() - interval '1 minute' AS touched FROM sessions WHERE user_id = $1`,
      [busy.id],
    );
    expect(rows).toEqual([{ touched: true }]);
  });
});

describe('Password hashing cost', () => {
  let old: TestApp;
  let current: TestApp;

  beforeAll(async () => {
    old = await startTestApp({ PASSWORD_HASH_LOG2_N: '14' });
    current = await startTestApp({ PASSWORD_HASH_LOG2_N: '17' }, { shareWith: old });
  });

  afterAll(async () => {
    await current?.close();
    await old?.close();
  });

  const storedHash = async (email: string) =>
    (await old.db.query('SELECT password_hash FROM users WHERE email = $1', [email])).rows[0]
      .password_hash as string;

  it('a hash cheaper than the configured cost (2^17 unless set) is upgraded at the next sign-in', async () => {
    const user = await new Factory(old).user();
    expect(await storedHash(user.email)).toMatch(/^scrypt\$16384\$8\$1\$/);

    await current.http
      .post('/api/auth/login')
      .send({ email: user.email, password: PASSWORD })
      .expect(200);
    expect(await storedHash(user.email)).toMatch(/^scrypt\$131072\$8\$1\$/);
    await current.http
      .post('/api/auth/login')
      .send({ email: user.email, password: PASSWORD })
      .expect(200);
    await current.http
      .post('/api/auth/login')
      .send({ email: user.email, password: 'wrong password' })
      .expect(401);
    expect(await storedHash(user.email)).toMatch(/^scrypt\$131072\$8\$1\$/);
  });
});

describe('Application API limits per user', () => {
  let t: TestApp;
  let ai: AiStandIn;
  let make: Factory;
  let owner: SignedInUser;

  beforeAll(async () => {
    ai = await new AiStandIn().start();
    t = await startTestApp({
      APP_RATE_LIMIT_PER_MINUTE: '4',
      AI_GENERATIONS_PER_HOUR: '2',
      AI_API_BASE_URL: ai.url,
      AI_API_KEY: 'sk-test-key',
    });
    make = new Factory(t);
    owner = await make.user();
  });

  afterAll(async () => {
    await t?.close();
    await ai?.stop();
  });

  it('counts each user’s requests with the public API’s headers, then 429 with Retry-After', async () => {
    const project = await t.http
      .post('/api/projects')
      .set('Authorization', owner.auth)
      .send({ name: 'Limited', timezone: 'UTC' })
      .expect(201);
    expect(project.headers['x-ratelimit-limit']).toBe('4');
    expect(project.headers['x-ratelimit-remaining']).toBe('3');
    for (const remaining of ['2', '1', '0']) {
      const res = await t.http.get('/api/projects').set('Authorization', owner.auth).expect(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(remaining);
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    }
    const refused = await t.http.get('/api/projects').set('Authorization', owner.auth);
    expectRefused(refused, 60);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    // Another user has a budget of their own.
    const other = await make.user();
    await t.http.get('/api/projects').set('Authorization', other.auth).expect(200);
  });

  it('AI generations: at most the hourly quota per user, each answer saying what is left', async () => {
    const writer = await make.user();
    const project = await t.http
      .post('/api/projects')
      .set('Authorization', writer.auth)
      .send({ name: 'AI', timezone: 'UTC' })
      .expect(201);
    const generate = () =>
      t.http
        .post('/api/posts/generate-post')
        .set('Authorization', writer.auth)
        .send({ project_id: project.body.id, prompt: 'Say hello' });
    const first = await generate().expect(200);
    expect([first.headers['x-ratelimit-limit'], first.headers['x-ratelimit-remaining']]).toEqual([
      '2',
      '1',
    ]);
    await generate().expect(200);
    expectRefused(await generate(), 3600);
    expect(ai.calls).toHaveLength(2);
  });
});

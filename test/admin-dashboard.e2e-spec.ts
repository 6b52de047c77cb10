import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import type { AddressInfo } from 'node:net';
import { Browser, chromium } from 'playwright-core';
import { SESSION_COOKIE } from '../src/admin/admin-session.service';
import { Factory, SignedInUser } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

/** Debian's chromium (`.ci/run` installs it when missing), driven by playwright-core. */
const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};
const PASSWORD = 'correct horse battery';
const FAILED_REASON = 'Telegram said no to this job';

/** D23: the queue dashboard, for administrators only, reached through /admin/login. */
describe('Queue dashboard at /admin/queues (D23)', () => {
  let t: TestApp;
  let make: Factory;
  let base: string;
  let admin: SignedInUser;
  let member: SignedInUser;
  let apiKey: string;
  let browser: Browser;

  beforeAll(async () => {
    // An API process: no worker takes the job below, so it stays failed for the dashboard.
    t = await startTestApp({ APP_ROLE: 'api' });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    make = new Factory(t);
    ({ owner: admin, key: apiKey } = await make.owner('Dashboard'));
    member = await make.user('Not an admin');
    // A failed publication job (the pipeline removes its own failed jobs; Bull keeps this one).
    const queue = t.app.get<Queue>(getQueueToken('publication'));
    await queue.add({ postId: 424242, attempt: 1 }, { jobId: 'post:424242:1' });
    const taken = await queue.getNextJob(); // this test takes the job, as a worker would
    await taken?.moveToFailed({ message: FAILED_REASON }, true);
    browser = await chromium.launch(CHROMIUM);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  describe('who gets in (HTTP)', () => {
    it.each([
      ['nobody', undefined],
      ['an API key, even an administrator’s', () => `Bearer ${apiKey}`],
      ['a session that does not exist', () => 'Bearer not-a-session-token'],
    ])(
      '%s: the page sends to the sign-in page, the board’s API answers 401',
      async (_who, auth) => {
        const page = t.http.get('/admin/queues');
        const pageRes = await (auth ? page.set('Authorization', auth()) : page).expect(303);
        expect(pageRes.headers.location).toBe('/admin/login');
        const api = t.http.get('/admin/queues/api/queues');
        const apiRes = await (auth ? api.set('Authorization', auth()) : api).expect(401);
        expect(apiRes.body.error.code).toBe('unauthorized');
      },
    );

    it('a signed-in non-administrator: 403', async () => {
      const res = await t.http.get('/admin/queues').set('Authorization', member.auth).expect(403);
      expect(res.text).toContain('administrators only');
      const api = await t.http
        .get('/admin/queues/api/queues')
        .set('Authorization', member.auth)
        .expect(403);
      expect(api.body.error.code).toBe('forbidden');
    });

    it('an administrator’s session as Bearer: the board, with every registered queue', async () => {
      await t.http.get('/admin/queues').set('Authorization', admin.auth).expect(200);
      const res = await t.http
        .get('/admin/queues/api/queues?activeQueue=publication&status=failed&page=1')
        .set('Authorization', admin.auth)
        .expect(200);
      const names = (res.body.queues as { name: string }[]).map((q) => q.name);
      expect(names).toEqual(expect.arrayContaining(['publication', 'webhooks']));
    });

    it('refuses a sign-in form without its CSRF token, or posted from another site', async () => {
      const form = await t.http.get('/admin/login').expect(200);
      const cookie = form.headers['set-cookie'] as unknown as string[];
      const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)?.[1] as string;
      const post = (fields: Record<string, string>, origin?: string) => {
        const req = t.http.post('/admin/login').set('Cookie', cookie).type('form').send(fields);
        return origin ? req.set('Origin', origin) : req;
      };
      const credentials = { email: admin.email, password: PASSWORD };
      expect((await post(credentials)).status).toBe(403);
      expect((await post({ ...credentials, csrf: `${csrf}x` })).status).toBe(403);
      expect((await post({ ...credentials, csrf }, 'https://evil.example')).status).toBe(403);
      const ok = await post({ ...credentials, csrf }).expect(303);
      expect(ok.headers.location).toBe('/admin/queues');
      const session = (ok.headers['set-cookie'] as unknown as string[]).find((c) =>
        c.startsWith(`${SESSION_COOKIE}=`),
      );
      expect(session).toMatch(/; HttpOnly/);
      expect(session).toMatch(/; SameSite=Strict/);
      expect(session).not.toMatch(/; Secure/); // plain http here; https adds it
    });
  });

  describe('in a real browser (headless Chromium)', () => {
    const sessionsOfAdmin = async () =>
      (
        await t.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1',
          [admin.email],
        )
      ).rows[0].n;
    it('an administrator signs in, sees the publication queue and its failed job, and signs out', async () => {
      const context = await browser.newContext();
      try {
        const before = await sessionsOfAdmin();
        const page = await context.newPage();
        await page.goto(`${base}/admin/queues`);
        expect(new URL(page.url()).pathname).toBe('/admin/login');

        await page.fill('#email', admin.email);
        await page.fill('#password', PASSWORD);
        await Promise.all([page.waitForURL(`${base}/admin/queues`), page.click('button')]);
        const [cookie] = (await context.cookies()).filter((c) => c.name === SESSION_COOKIE);
        expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });
        await page.getByText('publication').first().waitFor();
        expect(await sessionsOfAdmin()).toBe(before + 1);

        await page.goto(`${base}/admin/queues/queue/publication?status=failed`);
        await page.getByText(FAILED_REASON).first().waitFor();
        await page.getByText('post:424242:1').first().waitFor();

        await page.goto(`${base}/admin/logout`);
        await Promise.all([page.waitForURL(`${base}/admin/login`), page.click('button')]);
        expect((await context.cookies()).map((c) => c.name)).not.toContain(SESSION_COOKIE);
        expect(await sessionsOfAdmin()).toBe(before); // the browser's session is closed
        await page.goto(`${base}/admin/queues`);
        expect(new URL(page.url()).pathname).toBe('/admin/login');
      } finally {
        await context.close();
      }
    }, 60_000);

    it('a non-administrator is refused: no session from the form, 403 with one from the app', async () => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${base}/admin/login`);
        await page.fill('#email', member.email);
        await page.fill('#password', PASSWORD);
        const [answer] = await Promise.all([
          page.waitForResponse(
            (r) => r.url() === `${base}/admin/login` && r.request().method() === 'POST',
          ),
          page.click('button'),
        ]);
        expect(answer.status()).toBe(403);
        await page.getByText('administrators only').waitFor();
        expect((await context.cookies()).map((c) => c.name)).not.toContain(SESSION_COOKIE);

        // Even holding a session of the application, the dashboard stays closed.
        await context.addCookies([
          { name: SESSION_COOKIE, value: member.token, url: `${base}/admin` },
        ]);
        const refused = await page.goto(`${base}/admin/queues`);
        expect(refused?.status()).toBe(403);
        await page.getByText('administrators only').waitFor();
        expect(await page.content()).not.toContain(FAILED_REASON);
      } finally {
        await context.close();
      }
    }, 60_000);
  });
});

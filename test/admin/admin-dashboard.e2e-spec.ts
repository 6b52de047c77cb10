import { appRoutes } from '@bull-board/api/dist/routes.js';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import type { AddressInfo } from 'node:net';
import { Browser, chromium } from 'playwright-core';
import type request from 'supertest';
import { createHmac } from 'node:crypto';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../src/operations/admin/admin-session.service';
import { Factory, SignedInUser } from '../support/factories/factories';
import { startTestApp, TEST_APP_SECRET, TestApp } from '../support/test-app';

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

/** The queue dashboard, for operators only, reached through /admin/login. */
describe('Queue dashboard at /admin/queues', () => {
  let t: TestApp;
  let make: Factory;
  let base: string;
  let operator: SignedInUser;
  /** An administrator (may create API keys) who is no operator. */
  let member: SignedInUser;
  let apiKey: string;
  let browser: Browser;

  beforeAll(async () => {
    // An API process: no worker takes the job below, so it stays failed for the dashboard.
    t = await startTestApp({ APP_ROLE: 'api' });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    make = new Factory(t);
    operator = await make.operator();
    ({ owner: member, key: apiKey } = await make.owner('Dashboard'));
    // A failed publication job (the pipeline removes its own failed jobs; Bull keeps this one).
    const queue = t.app.get<Queue>(getQueueToken('publication'));
    await queue.add({ postId: 424242, attempt: 1 }, { jobId: 'post:424242:1' });
    const taken = await queue.getNextJob(); // this test takes the job, as a worker would
    await taken?.moveToFailed({ message: FAILED_REASON }, true);
    browser = await chromium.launch(CHROMIUM);
  }, 60_000);

  // Closing Chromium can take long on a loaded machine: the app closes whatever the browser does.
  afterAll(async () => {
    await Promise.race([
      browser?.close(),
      new Promise((resolve) => setTimeout(resolve, 10_000).unref()),
    ]);
    await t?.close();
  }, 60_000);

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

    it('a signed-in administrator who is no operator: 403', async () => {
      const res = await t.http.get('/admin/queues').set('Authorization', member.auth).expect(403);
      expect(res.text).toContain('operators only');
      const api = await t.http
        .get('/admin/queues/api/queues')
        .set('Authorization', member.auth)
        .expect(403);
      expect(api.body.error.code).toBe('forbidden');
    });

    it('every action of the board’s API is refused to an administrator who is no operator, and works for an operator', async () => {
      // Tenant A's post scheduled two hours ahead, as a delayed job, and the queue running.
      const queue = t.app.get<Queue>(getQueueToken('publication'));
      const delayed = await queue.add(
        { postId: 171717, attempt: 1 },
        { jobId: 'post:171717:1', delay: 2 * 3_600_000 },
      );
      const concrete = (route: string) =>
        route
          .replace(':queueName', 'publication')
          .replace(':jobId', String(delayed.id))
          .replace(':queueStatus', 'delayed')
          .replace(':schedulerId', 'none');
      const routes = (appRoutes.api as { method: string; route: string }[]).map(
        ({ method, route }) => ({ method, path: `/admin/queues${concrete(route)}` }),
      );
      expect(routes.filter((r) => r.method !== 'get').length).toBeGreaterThan(20);
      for (const { method, path } of routes) {
        const call = (t.http as unknown as Record<string, (url: string) => request.Test>)[method];
        const refused = await call(path).set('Authorization', member.auth).send({});
        expect([method, path, refused.status]).toEqual([method, path, 403]);
        expect(refused.body.error.code).toBe('forbidden');
        const anonymous = await call(path).send({});
        expect([method, path, anonymous.status]).toEqual([method, path, 401]);
      }
      expect(await (await queue.getJob(delayed.id))?.getState()).toBe('delayed');
      expect(await queue.isPaused()).toBe(false);

      await t.http
        .put(`/admin/queues/api/queues/publication/${delayed.id}/promote`)
        .set('Authorization', operator.auth)
        .expect(204);
      expect(await (await queue.getJob(delayed.id))?.getState()).toBe('waiting');
      await (await queue.getJob(delayed.id))?.remove();
    });

    it('an operator’s session as Bearer: the board, with every registered queue', async () => {
      await t.http.get('/admin/queues').set('Authorization', operator.auth).expect(200);
      const res = await t.http
        .get('/admin/queues/api/queues?activeQueue=publication&status=failed&page=1')
        .set('Authorization', operator.auth)
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
      const credentials = { email: operator.email, password: PASSWORD };
      expect((await post(credentials)).status).toBe(403);
      // A token keyed on APP_SECRET itself (not on the key derived for forms) is no token.
      const nonce = cookie
        .find((c) => c.startsWith(`${CSRF_COOKIE}=`))
        ?.split(';')[0]
        .slice(CSRF_COOKIE.length + 1) as string;
      const keyedOnTheSecret = createHmac('sha256', TEST_APP_SECRET)
        .update(`admin-csrf:${nonce}`)
        .digest('base64url');
      expect((await post({ ...credentials, csrf: keyedOnTheSecret })).status).toBe(403);
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
    const sessionsOfOperator = async () =>
      (
        await t.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1',
          [operator.email],
        )
      ).rows[0].n;
    it('an operator signs in, sees the publication queue and its failed job, and signs out', async () => {
      const context = await browser.newContext();
      try {
        const before = await sessionsOfOperator();
        const page = await context.newPage();
        await page.goto(`${base}/admin/queues`);
        expect(new URL(page.url()).pathname).toBe('/admin/login');

        await page.fill('#email', operator.email);
        await page.fill('#password', PASSWORD);
        await Promise.all([page.waitForURL(`${base}/admin/queues`), page.click('button')]);
        const [cookie] = (await context.cookies()).filter((c) => c.name === SESSION_COOKIE);
        expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });
        await page.getByText('publication').first().waitFor();
        expect(await sessionsOfOperator()).toBe(before + 1);

        await page.goto(`${base}/admin/queues/queue/publication?status=failed`);
        await page.getByText(FAILED_REASON).first().waitFor();
        await page.getByText('post:424242:1').first().waitFor();

        await page.goto(`${base}/admin/logout`);
        await Promise.all([page.waitForURL(`${base}/admin/login`), page.click('button')]);
        expect((await context.cookies()).map((c) => c.name)).not.toContain(SESSION_COOKIE);
        expect(await sessionsOfOperator()).toBe(before); // the browser's session is closed
        await page.goto(`${base}/admin/queues`);
        expect(new URL(page.url()).pathname).toBe('/admin/login');
      } finally {
        await context.close();
      }
    }, 60_000);

    it('a non-operator is refused: no session from the form, 403 with one from the app', async () => {
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
        await page.getByText('operators only').waitFor();
        expect((await context.cookies()).map((c) => c.name)).not.toContain(SESSION_COOKIE);

        // Even holding a session of the application, the dashboard stays closed.
        await context.addCookies([
          { name: SESSION_COOKIE, value: member.token, url: `${base}/admin` },
        ]);
        const refused = await page.goto(`${base}/admin/queues`);
        expect(refused?.status()).toBe(403);
        await page.getByText('operators only').waitFor();
        expect(await page.content()).not.toContain(FAILED_REASON);
      } finally {
        await context.close();
      }
    }, 60_000);
  });
});

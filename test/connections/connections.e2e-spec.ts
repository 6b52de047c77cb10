import { request } from 'undici';
import type { AddressInfo } from 'node:net';
import { Herald, HeraldError } from '../../clients/typescript/src';
import type { SignedInUser, TestProject } from '../support/factories/factories';
import { startWithMastodon, MastodonWorld } from '../support/factories/mastodon-world';
import { addMember, allFlagsBut, onlyFlags } from '../support/factories/team';
import type { MastodonStandIn } from '../support/stand-ins/mastodon-stand-in';
import type { TestApp } from '../support/test-app';
import { waitFor } from '../support/waits';
import { WebhookReceiver } from '../support/webhook-receiver';

const CALLBACK = '/api/oauth/mastodon/callback';
const SCOPES = 'read:accounts write:statuses write:media';

/**
 * Accounts connected through OAuth, end to end against the Mastodon stand-in's authorization
 * server: a start hands out a link; the test, as the account's owner in a browser, follows it to
 * the instance's consent page and back to Herald's callback.
 */
describe('Connecting accounts through OAuth (Mastodon)', () => {
  let world: MastodonWorld;
  let t: TestApp;
  let mastodon: MastodonStandIn;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    world = await startWithMastodon({ RATE_LIMIT_OTHER: '1000' });
    ({ t, mastodon } = world);
    ({ owner, project, key } = await world.make.owner('Connections'));
    receiver = await new WebhookReceiver().start();
  });

  afterAll(async () => {
    await receiver?.stop();
    await world?.close();
  });

  const startPublic = (body: Record<string, unknown>, apiKey = key, projectId = project.id) =>
    t.http
      .post(`/api/public/v1/projects/${projectId}/connections`)
      .set('Authorization', `Bearer ${apiKey}`)
      .send(body);
  const startApp = (body: Record<string, unknown>, auth = owner.auth, projectId = project.id) =>
    t.http.post(`/api/projects/${projectId}/connections`).set('Authorization', auth).send(body);

  /** The browser at the instance's consent page: where the instance sends it back. */
  async function consent(authorizeUrl: string): Promise<URL> {
    const res = await request(authorizeUrl, { method: 'GET' });
    await res.body.dump();
    expect(res.statusCode).toBe(302);
    return new URL(String(res.headers.location));
  }

  /** A connection started in `own`'s project (by `auth`, its owner unless given), consented to. */
  async function consentedLink(
    own: { owner: SignedInUser; project: TestProject },
    extra: Record<string, unknown> = {},
    auth = own.owner.auth,
  ): Promise<URL> {
    const started = await startApp(
      { platform: 'mastodon', instance_url: mastodon.url, ...extra },
      auth,
      own.project.id,
    ).expect(201);
    return consent(started.body.authorize_url as string);
  }

  /** The browser arriving back at Herald's callback with the instance's query. */
  const callback = (back: URL) => t.http.get(`${back.pathname}${back.search}`);

  const accountRows = async (projectId = project.id) =>
    (
      await t.db.query(
        'SELECT id, external_id, title, needs_reconnect FROM accounts WHERE project_id = $1 ORDER BY id',
        [projectId],
      )
    ).rows;

  it('connects an account: start, consent, callback, redirect, account with its channel, event', async () => {
    const { token, account } = mastodon.addAccount('herald_oauth', 'Herald OAuth');
    mastodon.oauth.signIn(token);
    const hook = await t.http
      .post(`/api/public/v1/projects/${project.id}/webhooks`)
      .set('Authorization', `Bearer ${key}`)
      .send({ url: receiver.url('/connected'), events: ['account.connected'] })
      .expect(201);
    receiver.expect('/connected', hook.body.secret as string);

    const started = await startPublic({
      platform: 'mastodon',
      instance_url: mastodon.url,
      redirect_url: 'https://app.example.com/accounts?tab=social',
    }).expect(201);
    expect(Object.keys(started.body).sort()).toEqual(['authorize_url', 'expires_at']);
    const expires = Date.parse(`${started.body.expires_at as string}Z`);
    expect(expires - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(10 * 60_000);

    // Herald registered itself on the instance once, with its callback and the scopes it needs.
    expect(mastodon.oauth.apps).toHaveLength(1);
    const [app] = mastodon.oauth.apps;
    expect(app).toMatchObject({
      name: 'Herald',
      redirectUris: [`http://herald.test${CALLBACK}`],
      scopes: SCOPES.split(' '),
    });
    const authorize = new URL(started.body.authorize_url as string);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${mastodon.url}/oauth/authorize`);
    const params = Object.fromEntries(authorize.searchParams);
    expect(params).toEqual({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: `http://herald.test${CALLBACK}`,
      scope: SCOPES,
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
    });

    const back = await consent(started.body.authorize_url as string);
    expect(back.pathname).toBe(CALLBACK);
    const done = await callback(back).expect(302);
    const [row] = await accountRows();
    expect(row).toMatchObject({
      external_id: account.id,
      title: 'Herald OAuth',
      needs_reconnect: false,
    });
    expect(done.headers.location).toBe(
      `https://app.example.com/accounts?tab=social&status=connected&account_id=${row.id as number}`,
    );
    expect(done.headers['cache-control']).toBe('no-store');

    const list = await t.http
      .get(`/api/public/v1/projects/${project.id}/channels`)
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    expect(list.body.items).toEqual([
      expect.objectContaining({
        id: `mastodon:${row.id as number}:${account.id}`,
        platform: 'mastodon',
      }),
    ]);
    // The token the exchange gave is the one Herald uses, sealed at rest.
    const tokenCall = mastodon.callsOf('token').at(-1)!;
    expect(tokenCall.body).toMatchObject({
      grant_type: 'authorization_code',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      redirect_uri: `http://herald.test${CALLBACK}`,
      code: back.searchParams.get('code'),
    });
    const { rows: raw } = await t.db.query('SELECT * FROM accounts WHERE id = $1', [row.id]);
    const { rows: clients } = await t.db.query('SELECT * FROM oauth_clients');
    expect(JSON.stringify([raw, clients])).not.toContain(app.clientSecret);
    const used = mastodon.callsOf('verify_credentials').at(-1)!;
    expect(JSON.stringify(raw)).not.toContain(String(used.headers.authorization).slice(7));

    await waitFor(() => receiver.of('/connected').length === 1, 10_000);
    expect(receiver.of('/connected')[0].payload).toMatchObject({
      type: 'account.connected',
      data: {
        project_id: project.id,
        account_id: row.id,
        platform: 'mastodon',
        channel_refs: [`mastodon:${row.id as number}:${account.id}`],
      },
    });

    // The link served once: the same callback again connects nothing.
    const replay = await callback(back).expect(400);
    expect(replay.headers['content-type']).toMatch(/^text\/html/);
    expect(replay.text).toContain('This link does not connect anything');
    expect(await accountRows()).toHaveLength(1);
  });

  it('a second connection of the same identity updates the account and clears needs_reconnect', async () => {
    const own = await world.make.owner('Reconnect by OAuth');
    const { token, account } = mastodon.addAccount('again', 'Again');
    mastodon.oauth.signIn(token);
    const connect = async () => callback(await consentedLink(own));
    const first = await connect();
    // Without redirect_url: a small page that says what happened.
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toMatch(/^text\/html/);
    expect(first.headers['content-security-policy']).toContain("default-src 'none'");
    expect(first.text).toContain('Again is connected');
    const [connected] = await accountRows(own.project.id);
    mastodon.script('post_status', {
      account: account.id,
      status: 401,
      error: 'The access token was revoked',
    });
    const post = await t.http
      .post(`/api/public/v1/projects/${own.project.id}/posts`)
      .set('Authorization', `Bearer ${own.key}`)
      .send({
        text: 'Refused',
        targets: [{ channel_ref: `mastodon:${connected.id as number}:${account.id}` }],
        publish_now: true,
      })
      .expect(201);
    await waitFor(
      async () => (await accountRows(own.project.id))[0].needs_reconnect === true,
      15_000,
    );
    expect(post.body.id).toEqual(expect.any(Number));

    await connect();
    expect(await accountRows(own.project.id)).toEqual([{ ...connected, needs_reconnect: false }]);
    // Herald kept its client on the instance: no second registration.
    expect(mastodon.oauth.apps).toHaveLength(1);
  });

  it('connecting an identity again after its account was removed makes a new account', async () => {
    const own = await world.make.owner('Removed, then connected');
    const { token, account } = mastodon.addAccount('comeback', 'Comeback');
    mastodon.oauth.signIn(token);
    await callback(await consentedLink(own)).expect(200);
    const [first] = await accountRows(own.project.id);
    await t.http
      .delete(`/api/accounts/${first.id as number}`)
      .set('Authorization', own.owner.auth)
      .expect(204);
    await callback(await consentedLink(own)).expect(200);
    const rows = await accountRows(own.project.id);
    expect(rows.map((r) => r.external_id)).toEqual([account.id, account.id]);
    expect(rows[1].id).not.toBe(first.id);
    const { rows: removed } = await t.db.query(
      'SELECT removed_at IS NOT NULL AS removed, credentials_encrypted FROM accounts WHERE id = $1',
      [first.id],
    );
    expect(removed).toEqual([{ removed: true, credentials_encrypted: null }]);
  });

  it('a declined consent reaches redirect_url as access_denied, storing nothing', async () => {
    const own = await world.make.owner('Declined');
    mastodon.oauth.decline();
    const back = await consentedLink(own, { redirect_url: 'http://localhost:5173/done' });
    expect(back.searchParams.get('error')).toBe('access_denied');
    const res = await callback(back).expect(302);
    expect(res.headers.location).toBe(
      'http://localhost:5173/done?status=error&error=access_denied',
    );
    expect(await accountRows(own.project.id)).toEqual([]);
  });

  it('a code the instance refuses reaches redirect_url as mastodon_rejected, storing nothing', async () => {
    const own = await world.make.owner('Refused code');
    const { token } = mastodon.addAccount();
    mastodon.oauth.signIn(token);
    const back = await consentedLink(own, { redirect_url: 'https://app.example.com/x' });
    back.searchParams.set('code', 'forged-code');
    const res = await callback(back).expect(302);
    expect(res.headers.location).toBe(
      'https://app.example.com/x?status=error&error=mastodon_rejected',
    );
    expect(mastodon.callsOf('token').at(-1)!.status).toBe(400);
    expect(await accountRows(own.project.id)).toEqual([]);
  });

  it('an unknown, expired or other platform’s state is a 400 page; nothing is stored', async () => {
    const own = await world.make.owner('Bad states');
    const { token } = mastodon.addAccount();
    mastodon.oauth.signIn(token);
    const back = await consentedLink(own);
    const state = back.searchParams.get('state')!;
    for (const path of [
      `${CALLBACK}?code=x&state=unknown-state`,
      `${CALLBACK}?code=x`,
      `/api/oauth/telegram/callback?code=x&state=${state}`,
      `/api/oauth/nowhere/callback?code=x&state=${state}`,
    ]) {
      const res = await t.http.get(path).expect(400);
      expect(res.text).toContain('This link does not connect anything');
    }
    // The state named on another platform's callback is still good on its own.
    await t.db.query(
      `UPDATE oauth_states SET expires_at = now() - interval '1 second' WHERE project_id = $1`,
      [own.project.id],
    );
    const expired = await callback(back).expect(400);
    expect(expired.text).toContain('has expired');
    expect(await accountRows(own.project.id)).toEqual([]);
    expect(
      (
        await t.db.query('SELECT count(*)::int AS n FROM oauth_states WHERE project_id = $1', [
          own.project.id,
        ])
      ).rows[0].n,
    ).toBe(0);
  });

  it('connects nothing when whoever started it has since left the project', async () => {
    const member = await world.make.admin('Leaving');
    await addMember(t, owner, project, member, 'editor', onlyFlags('can_manage_accounts'));
    const { token } = mastodon.addAccount();
    mastodon.oauth.signIn(token);
    const back = await consentedLink(
      { owner, project },
      { redirect_url: 'https://app.example.com/' },
      member.auth,
    );
    await t.http
      .delete(`/api/projects/${project.id}/members/${member.id}`)
      .set('Authorization', owner.auth)
      .expect(204);
    const before = await accountRows();
    const res = await callback(back).expect(302);
    expect(res.headers.location).toBe('https://app.example.com/?status=error&error=forbidden');
    expect(await accountRows()).toEqual(before);
  });

  it('lands the account in the project that started it, whoever follows the link', async () => {
    const mine = await world.make.owner('Mine');
    const theirs = await world.make.owner('Theirs');
    const { token } = mastodon.addAccount();
    mastodon.oauth.signIn(token);
    await callback(await consentedLink(mine)).expect(200);
    expect(await accountRows(mine.project.id)).toHaveLength(1);
    expect(await accountRows(theirs.project.id)).toEqual([]);
    // No endpoint subscribed to account.connected: no event is written.
    const { rows } = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_events WHERE project_id = $1',
      [mine.project.id],
    );
    expect(rows[0].n).toBe(0);
  });

  describe('who may start one, and with what', () => {
    it('needs accounts:write, can_manage_accounts and a live key', async () => {
      const body = { platform: 'mastodon', instance_url: mastodon.url };
      const narrow = await world.make.apiKey(owner, { scopes: ['posts:write'] });
      expect((await startPublic(body, narrow).expect(403)).body.error.code).toBe(
        'insufficient_scope',
      );
      const test = await world.make.apiKey(owner, { mode: 'test' });
      const refused = await startPublic(body, test).expect(403);
      expect(refused.body.error).toEqual({
        code: 'forbidden',
        message: 'Accounts are connected with a live key; this is a test key',
      });
      const member = await world.make.admin('No accounts');
      await addMember(t, owner, project, member, 'editor', allFlagsBut('can_manage_accounts'));
      const flag = await startApp(body, member.auth).expect(403);
      expect(flag.body.error.code).toBe('forbidden');
      expect(
        (await startPublic(body, await world.make.apiKey(member)).expect(403)).body.error.code,
      ).toBe('forbidden');
      const stranger = await world.make.owner('Stranger');
      expect((await startPublic(body, stranger.key).expect(404)).body.error.code).toBe(
        'project_not_found',
      );
      await startPublic(body, 'hrld_live_none').expect(401);
    });

    it('refuses a redirect_url that is not http(s), a platform without OAuth and a bad instance_url', async () => {
      const { rows: before } = await t.db.query('SELECT count(*)::int AS n FROM oauth_states');
      for (const redirect_url of [
        'javascript:alert(1)',
        'ftp://example.com/x',
        '/relative',
        'https://',
      ]) {
        const res = await startPublic({
          platform: 'mastodon',
          instance_url: mastodon.url,
          redirect_url,
        }).expect(400);
        expect(res.body.error).toMatchObject({ code: 'validation_failed' });
        expect(res.body.error.message).toContain('redirect_url');
      }
      for (const platform of ['telegram', 'myspace']) {
        const res = await startPublic({ platform }).expect(400);
        expect(res.body.error.message).toContain('platform');
      }
      const missing = await startPublic({ platform: 'mastodon' }).expect(400);
      expect(missing.body.error.details).toEqual([
        { field: 'instance_url', message: 'instance_url is required' },
      ]);
      const foreign = await startPublic({
        platform: 'mastodon',
        instance_url: mastodon.url,
        access_token: 'x',
      }).expect(400);
      expect(foreign.body.error.message).toContain('access_token');
      const internal = await startPublic({
        platform: 'mastodon',
        instance_url: 'http://10.1.2.3',
      }).expect(400);
      expect(internal.body.error.code).toBe('url_not_allowed');
      const { rows: after } = await t.db.query('SELECT count(*)::int AS n FROM oauth_states');
      expect(after[0].n).toBe(before[0].n);
    });
  });

  it('counts unknown states per client address like failed sign-ins: past the limit, even a good one waits', async () => {
    const limited = await startWithMastodon({ SIGNIN_FAILURES_PER_ADDRESS: '3' });
    try {
      const own = await limited.make.owner('Guessing');
      const { token } = limited.mastodon.addAccount();
      limited.mastodon.oauth.signIn(token);
      const started = await limited.t.http
        .post(`/api/projects/${own.project.id}/connections`)
        .set('Authorization', own.owner.auth)
        .send({ platform: 'mastodon', instance_url: limited.mastodon.url })
        .expect(201);
      const back = await consent(started.body.authorize_url as string);
      for (let i = 0; i < 3; i++)
        await limited.t.http.get(`${CALLBACK}?code=x&state=guess-${i}`).expect(400);
      const blocked = await limited.t.http.get(`${back.pathname}${back.search}`).expect(429);
      expect(blocked.headers['retry-after']).toMatch(/^\d+$/);
      expect(blocked.text).toContain('Too many unknown connection links from this address');
      const { rows } = await limited.t.db.query(
        'SELECT count(*)::int AS n FROM accounts WHERE project_id = $1',
        [own.project.id],
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await limited.close();
    }
  });

  it('the TypeScript client starts one with a live key, and a test key is refused', async () => {
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const baseUrl = `http://127.0.0.1:${port}`;
    const own = await world.make.owner('Client connection');
    const { token } = mastodon.addAccount('client_made', 'Client Made');
    mastodon.oauth.signIn(token);
    const herald = new Herald({ apiKey: own.key, baseUrl });
    const started = await herald.connections.start(own.project.id, {
      platform: 'mastodon',
      instance_url: mastodon.url,
    });
    expect(started.expires_at).toBeInstanceOf(Date);
    await callback(await consent(started.authorize_url)).expect(200);
    expect(await accountRows(own.project.id)).toEqual([
      expect.objectContaining({ title: 'Client Made' }),
    ]);
    const test = new Herald({
      apiKey: await world.make.apiKey(own.owner, { mode: 'test' }),
      baseUrl,
      retries: 0,
    });
    const refused = await test.connections
      .start(own.project.id, { platform: 'mastodon', instance_url: mastodon.url })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HeraldError);
    expect(refused).toMatchObject({ status: 403, code: 'forbidden' });
  });
});

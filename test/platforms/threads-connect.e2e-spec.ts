import type { SignedInUser, TestProject } from '../support/factories/factories';
import {
  consent,
  startWithThreads,
  THREADS_APP,
  type ThreadsWorld,
} from '../support/factories/threads-world';
import { startTestApp } from '../support/test-app';
import type { TestApp } from '../support/test-app';
import { Factory } from '../support/factories/factories';
import type { ThreadsServer } from '../support/stand-ins/threads-server';

const CALLBACK = '/api/oauth/threads/callback';

/** Connecting Threads profiles through Meta's Authorization Window, end to end over HTTP. */
describe('Threads: connecting a profile', () => {
  let world: ThreadsWorld;
  let t: TestApp;
  let threads: ThreadsServer;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;
  let profiles = 0;
  const profile = () => ({
    id: `178414000000${String(++profiles).padStart(5, '0')}`,
    username: `herald_${profiles}`,
  });

  beforeAll(async () => {
    world = await startWithThreads({ RATE_LIMIT_OTHER: '1000' });
    ({ t, threads } = world);
    ({ owner, project, key } = await world.make.owner('Threads connections'));
  });

  afterAll(async () => {
    await world?.close();
  });

  const start = (body: Record<string, unknown> = { platform: 'threads' }) =>
    t.http
      .post(`/api/projects/${project.id}/connections`)
      .set('Authorization', owner.auth)
      .send(body);
  const accounts = async () =>
    (await t.db.query('SELECT * FROM accounts WHERE project_id = $1 ORDER BY id', [project.id]))
      .rows;

  it('sends the user to the Authorization Window with the app, the scopes, the state and the redirect', async () => {
    const res = await start().expect(201);
    const url = new URL(res.body.authorize_url as string);
    expect(`${url.origin}${url.pathname}`).toBe(`${threads.url}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: THREADS_APP.id,
      redirect_uri: `${world.publicBaseUrl}${CALLBACK}`,
      scope: 'threads_basic,threads_content_publish,threads_manage_replies',
      response_type: 'code',
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
  });

  it('a consent connects the profile: code, long-lived token, identity, one channel with reconnect_by null', async () => {
    const me = profile();
    const account = await world.connect(owner, project, me);
    const [token] = threads.callsOf('token').slice(-1);
    expect(token.method).toBe('POST');
    expect(token.params).toMatchObject({
      client_id: THREADS_APP.id,
      client_secret: THREADS_APP.secret,
      grant_type: 'authorization_code',
      redirect_uri: `${world.publicBaseUrl}${CALLBACK}`,
    });
    const [exchange] = threads.callsOf('long_lived_token').slice(-1);
    expect(exchange).toMatchObject({ method: 'GET', path: '/access_token', status: 200 });
    expect(exchange.params).toMatchObject({
      grant_type: 'th_exchange_token',
      client_secret: THREADS_APP.secret,
    });
    const [identity] = threads.callsOf('me').slice(-1);
    expect(identity.params.fields).toBe('id,username');
    // The long-lived token is what is kept, sealed: never in clear in a row.
    expect(identity.params.access_token).not.toBe(exchange.params.access_token);

    const row = (await accounts()).find((a) => a.id === account.id);
    expect(row).toMatchObject({
      platform: 'threads',
      external_id: me.id,
      title: me.username,
      token_renewable: true,
    });
    expect(JSON.stringify(row)).not.toContain(identity.params.access_token);
    const expiresInDays = (Date.parse(row.token_expires_at) - Date.now()) / 86_400_000;
    expect(expiresInDays).toBeGreaterThan(59);
    expect(expiresInDays).toBeLessThanOrEqual(60);

    const list = await t.http
      .get(`/api/public/v1/projects/${project.id}/channels`)
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    expect(list.body.items.find((c: { id: string }) => c.id === account.channelRef)).toEqual({
      id: account.channelRef,
      platform: 'threads',
      account_id: account.id,
      channel_id: me.id,
      title: me.username,
      username: me.username,
      needs_reconnect: false,
      missing_since: null,
      url: `https://www.threads.net/@${me.username}`,
      reconnect_by: null,
      limits: {
        text_max: 500,
        text_unit: 'threads',
        media_max: 20,
        media_kinds: ['image', 'video'],
        media_max_bytes: { image: 8 * 1024 * 1024, video: 1024 * 1024 * 1024 },
        links_max: 5,
      },
    });
  });

  it('a user who presses Cancel comes back with access_denied; nothing is stored', async () => {
    const before = (await accounts()).length;
    threads.signIn(null);
    const started = await start({
      platform: 'threads',
      redirect_url: 'https://app.example.com/done',
    }).expect(201);
    const back = await consent(started.body.authorize_url as string);
    expect(back.searchParams.get('error_reason')).toBe('user_denied');
    const done = await t.http.get(`${back.pathname}${back.search}`).expect(302);
    expect(done.headers.location).toBe(
      'https://app.example.com/done?status=error&error=access_denied',
    );
    expect(await accounts()).toHaveLength(before);
  });

  const graphError = (status: number, code: number, message: string, extra = {}) => ({
    status,
    error: { message, type: 'OAuthException', code, ...extra },
  });
  it.each([
    [
      'a used code',
      'token',
      'threads_rejected',
      graphError(400, 100, 'This authorization code has been used.', { error_subcode: 36009 }),
    ],
    [
      'a 5xx',
      'long_lived_token',
      'threads_unavailable',
      graphError(500, 1, 'An unknown error has occurred.', { is_transient: true }),
    ],
    [
      'a rate limit',
      'me',
      'rate_limit_exceeded',
      graphError(400, 4, '(#4) Application request limit reached'),
    ],
  ] as const)(
    '%s at %s ends %s in the redirect; nothing is stored',
    async (_what, route, error, script) => {
      const before = (await accounts()).length;
      threads.signIn(profile());
      const started = await start({
        platform: 'threads',
        redirect_url: 'https://app.example.com/done',
      }).expect(201);
      const back = await consent(started.body.authorize_url as string);
      threads.script(route, script);
      const done = await t.http.get(`${back.pathname}${back.search}`).expect(302);
      expect(done.headers.location).toBe(
        `https://app.example.com/done?status=error&error=${error}`,
      );
      expect(await accounts()).toHaveLength(before);
    },
  );

  it('connecting the same profile again updates its account', async () => {
    const me = profile();
    const first = await world.connect(owner, project, me);
    const again = await world.connect(owner, project, me);
    expect(again.id).toBe(first.id);
  });

  it('a Threads account cannot be made with credentials: oauth_required', async () => {
    const res = await t.http
      .post('/api/accounts')
      .set('Authorization', owner.auth)
      .send({ project_id: project.id, platform: 'threads', access_token: 'x' })
      .expect(400);
    expect(res.body.error.code).toBe('oauth_required');
  });

  describe('a Herald not set up for Threads', () => {
    it('without the app settings: platform_not_configured', async () => {
      const bare = await startTestApp();
      try {
        const make = new Factory(bare);
        const { owner: o, project: p } = await make.owner('No Threads app');
        const res = await bare.http
          .post(`/api/projects/${p.id}/connections`)
          .set('Authorization', o.auth)
          .send({ platform: 'threads' })
          .expect(400);
        expect(res.body.error).toEqual({
          code: 'platform_not_configured',
          message:
            "Threads accounts cannot be connected yet: the operator has not configured Herald's Threads app",
        });
      } finally {
        await bare.close();
      }
    });

    it('whose media Meta could not fetch (a private PUBLIC_BASE_URL): media_url_not_public naming the setting', async () => {
      const hidden = await startTestApp({
        PUBLIC_BASE_URL: 'http://10.1.2.3:3000',
        THREADS_APP_ID: THREADS_APP.id,
        THREADS_APP_SECRET: THREADS_APP.secret,
        THREADS_GRAPH_URL: threads.url,
      });
      try {
        const make = new Factory(hidden);
        const { owner: o, project: p } = await make.owner('Hidden Herald');
        const res = await hidden.http
          .post(`/api/projects/${p.id}/connections`)
          .set('Authorization', o.auth)
          .send({ platform: 'threads' })
          .expect(400);
        expect(res.body.error.code).toBe('media_url_not_public');
        expect(res.body.error.message).toContain('PUBLIC_BASE_URL (http://10.1.2.3:3000)');
        expect(res.body.error.message).toContain('is a local or private address');
      } finally {
        await hidden.close();
      }
    });
  });
});

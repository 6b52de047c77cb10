import { request } from 'undici';
import { dropTestDatabase } from '../support/databases';
import { freePort } from '../support/free-port';
import { heraldReady, HeraldProcess, spawnHerald, stopHerald } from '../support/herald-process';
import { FacebookGraphServer } from '../support/stand-ins/facebook-graph-server';
import { MastodonStandIn } from '../support/stand-ins/mastodon-stand-in';
import { XStandIn } from '../support/stand-ins/x-stand-in';
import { waitFor } from '../support/waits';
import { createMigratedDatabase, TEST_APP_SECRET, TEST_REDIS_URL } from '../support/test-app';

/**
 * The callback is reached with a code and a state in its query, and trades them for tokens: none
 * of them may reach a log line. Herald runs as a process with its most talkative log level, and
 * every line it writes through connections that succeed, fail and are replayed is read.
 */
describe('Connections leave no code, state or token in the logs', () => {
  let database: { name: string; url: string };
  let mastodon: MastodonStandIn;
  let x: XStandIn;
  let graph: FacebookGraphServer;
  let herald: HeraldProcess;
  const facebookApp = { id: '1234567890123456', secret: 'facebook-app-secret-never-logged' };

  beforeAll(async () => {
    database = await createMigratedDatabase();
    mastodon = await new MastodonStandIn().start();
    x = await new XStandIn().start();
    const port = await freePort();
    x.registerCallback(`http://127.0.0.1:${port}/api/oauth/x/callback`);
    graph = await new FacebookGraphServer({
      ...facebookApp,
      redirectUris: [`http://127.0.0.1:${port}/api/oauth/facebook/callback`],
    }).start();
    herald = spawnHerald('all', port, {
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: `herald-oauth-logs-${process.pid}-${Date.now()}`,
      APP_SECRET: TEST_APP_SECRET,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
      LOG_LEVEL: 'trace',
      ...x.env(),
      FACEBOOK_APP_ID: facebookApp.id,
      FACEBOOK_APP_SECRET: facebookApp.secret,
      FACEBOOK_GRAPH_URL: graph.versioned,
      FACEBOOK_DIALOG_URL: graph.versioned,
      // Renewals, and their refusals, happen while the spec looks on.
      TOKEN_SWEEP_INTERVAL_MS: '300',
    });
    await heraldReady(herald, 120_000);
  }, 180_000);

  afterAll(async () => {
    if (herald) await stopHerald(herald);
    await mastodon?.stop();
    await x?.stop();
    await graph?.stop();
    if (database) await dropTestDatabase(database.name);
  });

  const json = async (method: 'GET' | 'POST', path: string, body?: object, auth?: string) => {
    const res = await request(`${herald.base}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(auth ? { authorization: auth } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  };
  /** A browser request that does not follow redirects. */
  const browse = async (url: string) => {
    const res = await request(url, { method: 'GET' });
    await res.body.dump();
    return { status: res.statusCode, location: String(res.headers.location ?? '') };
  };

  /** A user, signed up, and a project of theirs. */
  async function owner(email: string) {
    const registered = await json('POST', '/api/auth/register', {
      email,
      password: 'correct horse battery',
      name: 'Logs',
    });
    const auth = `Bearer ${registered.body.token as string}`;
    const project = await json('POST', '/api/projects', { name: 'Logs' }, auth);
    return { auth, project };
  }

  const unlogged = (secrets: string[]) => {
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(10);
      expect({ secret, logged: herald.logs.includes(secret) }).toEqual({ secret, logged: false });
    }
  };

  it('through a connection, a refused code and a replay', async () => {
    const { auth, project } = await owner('logs@example.com');
    const start = () =>
      json(
        'POST',
        `/api/projects/${project.body.id as number}/connections`,
        {
          platform: 'mastodon',
          instance_url: mastodon.url,
          redirect_url: 'https://app.example.com/done',
        },
        auth,
      );
    const { token } = mastodon.addAccount('logged', 'Logged');
    mastodon.oauth.signIn(token);
    const secrets: string[] = [];

    const started = await start();
    expect(started.status).toBe(201);
    const consent = await browse(started.body.authorize_url as string);
    const back = new URL(consent.location);
    secrets.push(back.searchParams.get('code')!, back.searchParams.get('state')!);
    secrets.push(new URL(started.body.authorize_url as string).searchParams.get('code_challenge')!);
    const done = await browse(consent.location);
    expect(done.location).toMatch(/status=connected/);
    expect((await browse(consent.location)).status).toBe(400);

    const refused = await start();
    const consentAgain = await browse(refused.body.authorize_url as string);
    const forged = new URL(consentAgain.location);
    secrets.push(forged.searchParams.get('state')!);
    forged.searchParams.set('code', 'forged-code-never-logged');
    secrets.push('forged-code-never-logged');
    expect((await browse(forged.toString())).location).toMatch(/error=mastodon_rejected/);

    const [app] = mastodon.oauth.apps;
    secrets.push(app.clientSecret);
    const used = mastodon.callsOf('verify_credentials').at(-1)!;
    secrets.push(String(used.headers.authorization).replace('Bearer ', ''));
    const tokenCalls = mastodon.callsOf('token');
    for (const call of tokenCalls) secrets.push(String(call.body.code_verifier));

    expect(herald.logs).toContain('/api/oauth/mastodon/callback');
    unlogged(secrets);
  }, 60_000);

  it('through an X connection, its renewals and a refused renewal', async () => {
    const { auth, project } = await owner('x-logs@example.com');
    const connect = async (tokenSeconds: number) => {
      const user = x.addUser();
      x.signIn(user);
      x.tokenSeconds = tokenSeconds;
      const started = await json(
        'POST',
        `/api/projects/${project.body.id as number}/connections`,
        { platform: 'x', redirect_url: 'https://app.example.com/done' },
        auth,
      );
      const consent = await browse(started.body.authorize_url as string);
      const back = new URL(consent.location);
      const done = await browse(consent.location);
      expect(done.location).toMatch(/status=connected/);
      x.tokenSeconds = 7_200;
      return {
        user,
        secrets: [
          back.searchParams.get('code')!,
          back.searchParams.get('state')!,
          new URL(started.body.authorize_url as string).searchParams.get('code_challenge')!,
        ],
      };
    };
    // Tokens of a second, renewed by the sweep; then a user who revoked Herald, refused.
    const renewed = await connect(1);
    const revoked = await connect(1);
    x.revoke(revoked.user);
    await waitFor(() => x.renewalsOf(renewed.user) >= 1, 10_000);
    await waitFor(
      () =>
        x.callsOf('token').some((c) => c.status === 400 && c.body.grant_type === 'refresh_token'),
      10_000,
    );
    // The renewals were made and logged, the refusal too: the lines below were read.
    await waitFor(() => herald.logs.includes('refused to renew its token'), 5_000);
    expect(herald.logs).toContain('/api/oauth/x/callback');
    const verifiers = x.callsOf('token').map((c) => String(c.body.code_verifier ?? ''));
    unlogged([
      ...renewed.secrets,
      ...revoked.secrets,
      ...x.issued,
      ...verifiers.filter(Boolean),
      x.client.secret,
      Buffer.from(`${x.client.id}:${x.client.secret}`).toString('base64'),
    ]);
  }, 60_000);

  it('through a Facebook connection and posts to its page, one refused', async () => {
    const { auth, project } = await owner('facebook-logs@example.com');
    const page = { id: '108000000000555', name: 'Logged page' };
    graph.signIn({ id: '100000000000555', name: 'Logs user' }, [page]);
    const started = await json(
      'POST',
      `/api/projects/${project.body.id as number}/connections`,
      { platform: 'facebook', redirect_url: 'https://app.example.com/done' },
      auth,
    );
    const consent = await browse(started.body.authorize_url as string);
    const back = new URL(consent.location);
    const done = await browse(consent.location);
    expect(done.location).toMatch(/status=connected/);
    const account = new URL(done.location).searchParams.get('account_id')!;
    graph.script('feed', {
      status: 400,
      error: { message: '(#200) Permissions error', type: 'OAuthException', code: 200 },
    });
    for (const text of ['Refused with the token in its query', 'Published']) {
      const made = await json(
        'POST',
        '/api/posts',
        {
          project_id: project.body.id,
          text,
          targets: [{ channel_ref: `facebook:${account}:${page.id}` }],
          publish_now: true,
        },
        auth,
      );
      expect(made.status).toBe(201);
    }
    await waitFor(() => graph.posts.some((post) => post.message === 'Published'), 10_000);
    const tokens = graph.calls.flatMap((call) =>
      [call.params.access_token, call.params.fb_exchange_token].filter(Boolean),
    );
    expect(tokens.length).toBeGreaterThan(3);
    unlogged([
      back.searchParams.get('code')!,
      back.searchParams.get('state')!,
      ...new Set(tokens),
      facebookApp.secret,
    ]);
  }, 60_000);
});

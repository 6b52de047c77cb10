import { Factory, type SignedInUser, type TestProject } from '../support/factories/factories';
import { fixture } from '../support/factories/media-helpers';
import { consent, startWithX, type XWorld } from '../support/factories/x-world';
import { targetsOf, waitForPostStatus } from '../support/publication';
import { startTestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { waitFor } from '../support/waits';

const CALLBACK = 'http://herald.test/api/oauth/x/callback';

/**
 * X end to end against the X stand-in: accounts connected through OAuth 2.0 with PKCE, posts with
 * images and their descriptions, X's weighted limits, and exactly once without an idempotency key
 * (a retry meets X's duplicate refusal and finds the post the first try made).
 */
describe('X', () => {
  let world: XWorld;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;

  beforeAll(async () => {
    world = await startWithX({
      RATE_LIMIT_CREATE_POST: '1000',
      PUBLICATION_RETRY_BASE_MS: '50',
      // The webhook receiver listens on loopback.
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
    });
    ({ owner, project, key } = await world.make.owner('X'));
  });
  afterAll(() => world?.close());

  const api = (method: 'get' | 'post' | 'patch' | 'delete', path: string) =>
    world.t.http[method](`/api/public/v1/projects/${project.id}${path}`).set(
      'Authorization',
      `Bearer ${key}`,
    );

  const publish = async (body: Record<string, unknown>) =>
    (
      await api('post', '/posts')
        .send({ publish_now: true, ...body })
        .expect(201)
    ).body.id as number;

  it('connects an account through OAuth 2.0 with PKCE: its tokens kept sealed, its timeline a channel', async () => {
    const user = world.x.addUser('herald_x', 'Herald on X');
    world.x.signIn(user);
    const started = await api('post', '/connections').send({ platform: 'x' }).expect(201);
    const authorize = new URL(started.body.authorize_url as string);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${world.x.url}/i/oauth2/authorize`);
    expect(Object.fromEntries(authorize.searchParams)).toEqual({
      response_type: 'code',
      client_id: world.x.client.id,
      redirect_uri: CALLBACK,
      scope: 'tweet.read tweet.write users.read media.write offline.access',
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
    });
    const back = await consent(authorize.toString());
    const page = await world.t.http.get(`${back.pathname}${back.search}`).expect(200);
    expect(page.text).toContain('Herald on X is connected');

    // The code went to the token endpoint with the app's client in HTTP Basic and the verifier.
    const [exchange] = world.x.callsOf('token');
    expect(exchange.headers.authorization).toBe(
      `Basic ${Buffer.from(`${world.x.client.id}:${world.x.client.secret}`).toString('base64')}`,
    );
    expect(exchange.body).toMatchObject({
      grant_type: 'authorization_code',
      redirect_uri: CALLBACK,
      code_verifier: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });

    const { rows } = await world.t.db.query(
      `SELECT id, external_id, title, username, token_renewable, reconnect_by,
              extract(epoch FROM token_expires_at - now()) AS expires_in, credentials_encrypted
         FROM accounts WHERE project_id = $1 AND platform = 'x'`,
      [project.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      external_id: user.id,
      title: 'Herald on X',
      username: 'herald_x',
      token_renewable: true,
      reconnect_by: null,
    });
    expect(Number(rows[0].expires_in)).toBeGreaterThan(7_100);
    expect(Number(rows[0].expires_in)).toBeLessThanOrEqual(7_200);
    // Sealed: neither token is in the row in clear.
    const issued = world.x.callsOf('token')[0];
    expect(issued.status).toBe(200);
    expect(rows[0].credentials_encrypted).not.toMatch(/access_token|refresh_token/);

    const list = await api('get', '/channels').expect(200);
    const channel = (list.body.items as Record<string, unknown>[]).find(
      (item) => item.id === `x:${rows[0].id}:${user.id}`,
    );
    expect(channel).toMatchObject({
      platform: 'x',
      title: 'Herald on X',
      username: 'herald_x',
      url: 'https://x.com/herald_x',
      needs_reconnect: false,
      reconnect_by: null,
      limits: {
        text_max: 280,
        text_unit: 'x',
        media_max: 4,
        media_kinds: ['image'],
        media_max_bytes: { image: 5 * 1024 * 1024 },
      },
    });
  });

  it('shows reconnect_by, the token’s end, for an account X gave no refresh token, and never renews it', async () => {
    world.x.refreshTokens = false;
    let account;
    try {
      account = await world.xAccount(owner, project);
    } finally {
      world.x.refreshTokens = true;
    }
    const { rows } = await world.t.db.query(
      `SELECT token_renewable, to_char(token_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS expires
         FROM accounts WHERE id = $1`,
      [account.id],
    );
    expect(rows[0].token_renewable).toBe(false);
    const list = await api('get', '/channels').expect(200);
    const channel = (list.body.items as { id: string; reconnect_by: string | null }[]).find(
      (item) => item.id === account.channelRef,
    );
    expect(channel?.reconnect_by).toBe(rows[0].expires);
  });

  it('brings a declined consent back as access_denied, with nothing stored', async () => {
    const before = await world.t.db.query(`SELECT count(*)::int AS n FROM accounts`);
    world.x.decline();
    const started = await api('post', '/connections')
      .send({ platform: 'x', redirect_url: 'https://app.example.com/done' })
      .expect(201);
    const back = await consent(started.body.authorize_url as string);
    const done = await world.t.http.get(`${back.pathname}${back.search}`).expect(302);
    const location = new URL(String(done.headers.location));
    expect(Object.fromEntries(location.searchParams)).toEqual({
      status: 'error',
      error: 'access_denied',
    });
    const after = await world.t.db.query(`SELECT count(*)::int AS n FROM accounts`);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('takes no pasted credentials: an X account connects through OAuth only', async () => {
    const res = await world.t.http
      .post('/api/accounts')
      .set('Authorization', owner.auth)
      .send({ project_id: project.id, platform: 'x', access_token: 'pasted' })
      .expect(400);
    expect(res.body.error.code).toBe('oauth_required');
    expect(res.body.error.message).toContain('/connections');
  });

  it('publishes text with images and their descriptions, and links the post', async () => {
    const account = await world.xAccount(owner, project);
    const media = [
      await world.make.media(project, key, 'sample.png'),
      await world.make.media(project, key, 'sample.jpg'),
    ];
    await api('patch', `/media/${media[0]}`).send({ alt_text: 'A lighthouse at dusk' }).expect(200);
    const postId = await publish({
      text: 'Lighthouses & harbours <3 https://example.com/lights?a=1&b=2',
      media_ids: media,
      targets: [{ channel_ref: account.channelRef }],
    });
    expect((await waitForPostStatus(world.t, postId)).status).toBe('published');
    const [made] = world.x.postsOf(account.user);
    expect(made.text).toBe('Lighthouses & harbours <3 https://example.com/lights?a=1&b=2');
    expect(made.mediaIds).toHaveLength(2);
    expect(world.x.mediaById(made.mediaIds[0])).toMatchObject({
      bytes: fixture('sample.png').length,
      altText: 'A lighthouse at dusk',
    });
    expect(world.x.mediaById(made.mediaIds[1])?.altText).toBeNull();
    const post = await api('get', `/posts/${postId}`).expect(200);
    expect(post.body.targets[0].messages).toEqual([
      { id: made.id, url: `https://x.com/${account.user.username}/status/${made.id}` },
    ]);
  });

  it('publishes a thread as a reply chain, each item replying to the one recorded before it', async () => {
    const account = await world.xAccount(owner, project);
    const png = await world.make.media(project, key, 'sample.png');
    const postId = await publish({
      text: 'A thread, 1',
      thread: [{ text: 'A thread, 2', media_ids: [png] }, { text: 'A thread, 3' }],
      targets: [{ channel_ref: account.channelRef }],
    });
    expect((await waitForPostStatus(world.t, postId)).status).toBe('published');
    const made = world.x.postsOf(account.user);
    expect(made.map((p) => [p.text, p.replyTo, p.mediaIds.length])).toEqual([
      ['A thread, 1', null, 0],
      ['A thread, 2', made[0].id, 1],
      ['A thread, 3', made[1].id, 0],
    ]);
    const post = await api('get', `/posts/${postId}`).expect(200);
    expect(post.body.targets[0].messages.map((m: { id: string }) => m.id)).toEqual(
      made.map((p) => p.id),
    );
  });

  it('simulates a test key’s post, thread and all: made-up messages, nothing sent to X', async () => {
    const account = await world.xAccount(owner, project);
    const testKey = await world.make.apiKey(owner, { mode: 'test' });
    const before = world.x.callsOf('create_post').length;
    const created = await world.t.http
      .post(`/api/public/v1/projects/${project.id}/posts`)
      .set('Authorization', `Bearer ${testKey}`)
      .send({
        text: 'Only a rehearsal',
        thread: [{ text: 'Its reply' }],
        targets: [{ channel_ref: account.channelRef }],
        publish_now: true,
      })
      .expect(201);
    expect((await waitForPostStatus(world.t, created.body.id as number)).status).toBe('published');
    const post = await world.t.http
      .get(`/api/public/v1/projects/${project.id}/posts/${created.body.id as number}`)
      .set('Authorization', `Bearer ${testKey}`)
      .expect(200);
    expect(post.body.test).toBe(true);
    expect(post.body.targets[0].messages).toHaveLength(2);
    expect(world.x.callsOf('create_post')).toHaveLength(before);
  });

  it('weighs text as X does (links 23, CJK and emoji 2) and keeps to four images, no video', async () => {
    const account = await world.xAccount(owner, project);
    const problems = async (body: Record<string, unknown>) => {
      const res = await api('post', '/posts/validate')
        .send({ targets: [{ channel_ref: account.channelRef }], ...body })
        .expect(200);
      return res.body.errors as { code: string; field: string; message: string }[];
    };
    expect(await problems({ text: '漢'.repeat(140) })).toEqual([]);
    expect(await problems({ text: '👋'.repeat(140) })).toEqual([]);
    const [cjk] = await problems({ text: '漢'.repeat(141) });
    expect(cjk).toMatchObject({
      code: 'text_too_long',
      field: 'text',
      channel_ref: account.channelRef,
    });
    expect(cjk.message).toContain('this text has 282');
    expect((await problems({ text: '👋'.repeat(141) }))[0].code).toBe('text_too_long');
    // A link counts 23 whatever its length: 256 + 1 + 23 = 280.
    expect(
      await problems({ text: `${'a'.repeat(256)} https://example.com/${'p'.repeat(300)}` }),
    ).toEqual([]);
    expect(await problems({ text: `${'a'.repeat(257)} https://example.com/` })).toHaveLength(1);
    const pngs: number[] = [];
    for (let i = 0; i < 5; i++) pngs.push(await world.make.media(project, key, 'sample.png'));
    const [five] = await problems({ text: 'Five', media_ids: pngs });
    expect(five.code).toBe('too_many_media');
    const video = await world.make.media(project, key, 'sample.mp4');
    const [refused] = await problems({ text: 'A video', media_ids: [video] });
    expect(refused.code).toBe('media_not_supported');
  });

  it('publishes once when the answer is lost: the retry meets the duplicate refusal and finds the post', async () => {
    const account = await world.xAccount(owner, project);
    world.x.script('create_post', { afterServing: 'drop', user: account.user.id });
    const text = 'Harbour lights & tides https://example.com/tides?x=1&y=2';
    const postId = await publish({ text, targets: [{ channel_ref: account.channelRef }] });
    expect((await waitForPostStatus(world.t, postId)).status).toBe('published');
    const made = world.x.postsOf(account.user);
    expect(made).toHaveLength(1);
    expect(world.x.callsOf('create_post').filter((c) => c.headers.authorization)).toEqual(
      expect.arrayContaining([expect.objectContaining({ status: 403 })]),
    );
    expect(world.x.callsOf('user_posts').at(-1)?.path).toBe(`/2/users/${account.user.id}/tweets`);
    const [target] = await targetsOf(world.t, postId);
    expect(target).toMatchObject({ status: 'published', error_code: null });
    const post = await api('get', `/posts/${postId}`).expect(200);
    expect(post.body.targets[0].messages[0].id).toBe(made[0].id);
  });

  it('refuses, as X does, a text the user posted just before themselves', async () => {
    const account = await world.xAccount(owner, project);
    const first = await publish({
      text: 'Same words',
      targets: [{ channel_ref: account.channelRef }],
    });
    expect((await waitForPostStatus(world.t, first)).status).toBe('published');
    const second = await publish({
      text: 'Same words',
      targets: [{ channel_ref: account.channelRef }],
    });
    expect((await waitForPostStatus(world.t, second)).status).toBe('failed');
    const [target] = await targetsOf(world.t, second);
    expect(target.error_code).toBe('x_rejected');
    expect(target.error_message).toContain('duplicate content');
    expect(world.x.postsOf(account.user)).toHaveLength(1);
  });

  it('waits out a 429 until x-rate-limit-reset and publishes once', async () => {
    const account = await world.xAccount(owner, project);
    world.x.script('create_post', {
      user: account.user.id,
      status: 429,
      body: {
        title: 'Too Many Requests',
        detail: 'Too Many Requests',
        type: 'about:blank',
        status: 429,
      },
      headers: {
        'x-rate-limit-remaining': '0',
        'x-rate-limit-reset': String(Math.ceil(Date.now() / 1000) + 1),
      },
    });
    const postId = await publish({
      text: 'After the wait',
      targets: [{ channel_ref: account.channelRef }],
    });
    expect((await waitForPostStatus(world.t, postId, undefined, 20_000)).status).toBe('published');
    expect(world.x.postsOf(account.user)).toHaveLength(1);
    const { rows } = await world.t.db.query(
      'SELECT failures FROM post_targets WHERE post_id = $1',
      [postId],
    );
    expect(rows[0].failures).toBe(0);
  });

  it('holds every send of the user until x-rate-limit-reset once X answers 429', async () => {
    const account = await world.xAccount(owner, project);
    const reset = Math.ceil(Date.now() / 1000) + 2;
    world.x.script('create_post', {
      user: account.user.id,
      status: 429,
      body: {
        title: 'Too Many Requests',
        detail: 'Too Many Requests',
        type: 'about:blank',
        status: 429,
      },
      headers: { 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(reset) },
    });
    const first = await publish({
      text: 'First, refused',
      targets: [{ channel_ref: account.channelRef }],
    });
    // The refused send is released once every worker's sends of the user are held.
    await waitFor(async () => {
      const { rows } = await world.t.db.query(
        `SELECT t.sending_since FROM post_targets t WHERE t.post_id = $1`,
        [first],
      );
      return (
        world.x.callsOf('create_post').some((c) => c.status === 429) &&
        rows[0].sending_since === null
      );
    });
    const second = await publish({
      text: 'Second, held',
      targets: [{ channel_ref: account.channelRef }],
    });
    for (const id of [first, second])
      expect((await waitForPostStatus(world.t, id, undefined, 20_000)).status).toBe('published');
    const served = world.x
      .callsOf('create_post')
      .filter((c) => c.status === 201)
      .slice(-2);
    expect(served.map((c) => c.body.text).sort()).toEqual(['First, refused', 'Second, held']);
    // Neither went before X's reset (its second, less the clocks' rounding).
    for (const call of served) expect(call.at).toBeGreaterThanOrEqual(reset * 1000 - 1000);
  });

  it('renews a refused token once and sends again, without flagging the account', async () => {
    const account = await world.xAccount(owner, project);
    world.x.expireTokens(account.user);
    const postId = await publish({
      text: 'Renewed and sent',
      targets: [{ channel_ref: account.channelRef }],
    });
    expect((await waitForPostStatus(world.t, postId)).status).toBe('published');
    expect(world.x.renewalsOf(account.user)).toBe(1);
    expect(world.x.postsOf(account.user)).toHaveLength(1);
    const { rows } = await world.t.db.query('SELECT needs_reconnect FROM accounts WHERE id = $1', [
      account.id,
    ]);
    expect(rows[0].needs_reconnect).toBe(false);
  });

  it('flags an account whose access the user revoked, once, with one channel.needs_reconnect', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const hook = await api('post', '/webhooks')
        .send({ url: receiver.url('/x'), events: ['channel.needs_reconnect'] })
        .expect(201);
      receiver.expect('/x', hook.body.secret as string);
      const account = await world.xAccount(owner, project);
      world.x.revoke(account.user);
      const postId = await publish({
        text: 'Never sent',
        targets: [{ channel_ref: account.channelRef }],
      });
      expect((await waitForPostStatus(world.t, postId)).status).toBe('failed');
      const [target] = await targetsOf(world.t, postId);
      expect(target.error_code).toBe('account_needs_reconnect');
      const { rows } = await world.t.db.query(
        'SELECT needs_reconnect FROM accounts WHERE id = $1',
        [account.id],
      );
      expect(rows[0].needs_reconnect).toBe(true);
      await waitFor(() => receiver.of('/x').length >= 1);
      expect(receiver.of('/x').map((d) => d.payload.type)).toEqual(['channel.needs_reconnect']);
      await hookCleanup(hook.body.id as number);
    } finally {
      await receiver.stop();
    }
  });

  const hookCleanup = (id: number) => api('delete', `/webhooks/${id}`).expect(204);
});

describe('X without its app configured', () => {
  it('answers 400 platform_not_configured to a connection start, naming the platform', async () => {
    const t = await startTestApp();
    try {
      const { project, key } = await new Factory(t).owner('No X app');
      const res = await t.http
        .post(`/api/public/v1/projects/${project.id}/connections`)
        .set('Authorization', `Bearer ${key}`)
        .send({ platform: 'x' })
        .expect(400);
      expect(res.body.error).toEqual({
        code: 'platform_not_configured',
        message: expect.stringContaining('X'),
      });
      const { rows } = await t.db.query('SELECT count(*)::int AS n FROM oauth_states');
      expect(rows[0].n).toBe(0);
    } finally {
      await t.close();
    }
  });
});

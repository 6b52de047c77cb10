import { TokenRenewals } from '../../src/domains/connections/renewal/token-renewals';
import { Factory, type SignedInUser, type TestProject } from '../support/factories/factories';
import { consent } from '../support/factories/x-world';
import { targetsOf, waitForPostStatus } from '../support/publication';
import { LinkedInStandIn, type LinkedInMember } from '../support/stand-ins/linkedin-stand-in';
import { startTestApp, type TestApp } from '../support/test-app';

const CALLBACK = 'http://herald.test/api/oauth/linkedin/callback';
const RESERVED = 'Costs (with tax) are #1 @herald: a_b *bold* ~x~ <tag> [list] {x} | back\\slash';

/**
 * LinkedIn end to end against the LinkedIn stand-in: 3-legged OAuth, the member and the
 * organizations it administers as channels, little text escaped so a post reads as written,
 * images initialized then uploaded, and exactly once through LinkedIn's duplicate refusal.
 */
describe('LinkedIn', () => {
  let linkedin: LinkedInStandIn;
  let t: TestApp;
  let make: Factory;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;

  beforeAll(async () => {
    linkedin = await new LinkedInStandIn().start();
    linkedin.registerCallback(CALLBACK);
    t = await startTestApp({
      ...linkedin.env(),
      RATE_LIMIT_OTHER: '1000',
      RATE_LIMIT_CREATE_POST: '1000',
      PUBLICATION_RETRY_BASE_MS: '50',
    });
    make = new Factory(t);
    ({ owner, project, key } = await make.owner('LinkedIn'));
  });
  afterAll(async () => {
    await t?.close();
    await linkedin?.stop();
  });

  const api = (method: 'get' | 'post' | 'patch', path: string) =>
    t.http[method](`/api/public/v1/projects/${project.id}${path}`).set(
      'Authorization',
      `Bearer ${key}`,
    );

  /** The member connects through `app` (this spec's unless given); its account id. */
  async function connect(member: LinkedInMember, app = t): Promise<number> {
    linkedin.signIn(member);
    const started = await app.http
      .post(`/api/projects/${project.id}/connections`)
      .set('Authorization', owner.auth)
      .send({ platform: 'linkedin', redirect_url: 'https://app.example.com/done' })
      .expect(201);
    const back = await consent(started.body.authorize_url as string);
    const done = await app.http.get(`${back.pathname}${back.search}`).expect(302);
    const location = new URL(String(done.headers.location));
    expect(location.searchParams.get('status')).toBe('connected');
    return Number(location.searchParams.get('account_id'));
  }

  const channelsOf = async (accountId: number) =>
    ((await api('get', '/channels').expect(200)).body.items as Record<string, unknown>[]).filter(
      (item) => item.account_id === accountId,
    );

  const publish = async (ref: string, body: Record<string, unknown>) =>
    (
      await api('post', '/posts')
        .send({ targets: [{ channel_ref: ref }], publish_now: true, ...body })
        .expect(201)
    ).body.id as number;

  it('connects a member through 3-legged OAuth: the member a channel, reconnect_by its token’s end', async () => {
    const member = linkedin.addMember('Ada Lovelace');
    linkedin.signIn(member);
    const started = await api('post', '/connections').send({ platform: 'linkedin' }).expect(201);
    const authorize = new URL(started.body.authorize_url as string);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(
      `${linkedin.url}/oauth/v2/authorization`,
    );
    expect(Object.fromEntries(authorize.searchParams)).toEqual({
      response_type: 'code',
      client_id: linkedin.client.id,
      redirect_uri: CALLBACK,
      state: expect.any(String),
      scope: 'openid profile w_member_social',
    });
    const back = await consent(authorize.toString());
    await t.http.get(`${back.pathname}${back.search}`).expect(200);
    const { rows } = await t.db.query(
      `SELECT id, external_id, token_renewable,
              to_char(reconnect_by AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS reconnect_by,
              extract(epoch FROM token_expires_at - now()) AS expires_in
         FROM accounts WHERE platform = 'linkedin' AND external_id = $1`,
      [member.sub],
    );
    expect(rows[0].token_renewable).toBe(false);
    expect(Number(rows[0].expires_in)).toBeGreaterThan(59 * 86_400);
    expect(await channelsOf(rows[0].id)).toEqual([
      expect.objectContaining({
        id: `linkedin:${rows[0].id}:urn:li:person:${member.sub}`,
        channel_id: `urn:li:person:${member.sub}`,
        title: 'Ada Lovelace',
        reconnect_by: rows[0].reconnect_by,
        limits: expect.objectContaining({ text_max: 3000, media_max: 10, media_kinds: ['image'] }),
      }),
    ]);
  });

  it('brings LinkedIn’s own decline codes back as access_denied', async () => {
    for (const error of ['user_cancelled_authorize', 'user_cancelled_login'] as const) {
      linkedin.decline(error);
      const started = await api('post', '/connections')
        .send({ platform: 'linkedin', redirect_url: 'https://app.example.com/done' })
        .expect(201);
      const back = await consent(started.body.authorize_url as string);
      expect(back.searchParams.get('error')).toBe(error);
      const done = await t.http.get(`${back.pathname}${back.search}`).expect(302);
      expect(new URL(String(done.headers.location)).searchParams.get('error')).toBe(
        'access_denied',
      );
    }
  });

  it('with organizations, lists each one the member administers as a channel too', async () => {
    const member = linkedin.addMember('Grace Hopper');
    const urn = linkedin.addOrganization('Herald Inc', 'herald-inc', member);
    linkedin.addOrganization('Someone else', 'someone-else', linkedin.addMember());
    const withOrganizations = await startTestApp(
      { ...linkedin.env(), LINKEDIN_ORGANIZATIONS: 'true', RATE_LIMIT_OTHER: '1000' },
      { shareWith: t },
    );
    try {
      const id = await connect(member, withOrganizations);
      const scope = new URL(
        String(linkedin.callsOf('authorize').at(-1)!.query.get('redirect_uri')),
      );
      expect(scope.pathname).toBe('/api/oauth/linkedin/callback');
      expect(linkedin.callsOf('authorize').at(-1)!.query.get('scope')).toBe(
        'openid profile w_member_social w_organization_social r_organization_admin',
      );
      const channels = await channelsOf(id);
      expect(channels.map((c) => [c.channel_id, c.title, c.url])).toEqual([
        [`urn:li:person:${member.sub}`, 'Grace Hopper', null],
        [urn, 'Herald Inc', 'https://www.linkedin.com/company/herald-inc'],
      ]);
      const postId = await publish(`linkedin:${id}:${urn}`, { text: 'From the company page' });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      expect(linkedin.postsBy(urn).map((p) => p.shown)).toEqual(['From the company page']);
    } finally {
      await withOrganizations.close();
    }
  });

  it('escapes little text so the post reads exactly as written, on the versioned API', async () => {
    const member = linkedin.addMember();
    const id = await connect(member);
    const postId = await publish(`linkedin:${id}:urn:li:person:${member.sub}`, { text: RESERVED });
    expect((await waitForPostStatus(t, postId)).status).toBe('published');
    const [made] = linkedin.postsBy(`urn:li:person:${member.sub}`);
    expect(made.shown).toBe(RESERVED);
    const call = linkedin.callsOf('create_post').at(-1)!;
    expect(call.headers['linkedin-version']).toMatch(/^\d{6}$/);
    expect(call.headers['x-restli-protocol-version']).toBe('2.0.0');
    expect(call.body).toMatchObject({
      author: `urn:li:person:${member.sub}`,
      visibility: 'PUBLIC',
      lifecycleState: 'PUBLISHED',
      distribution: {
        feedDistribution: 'MAIN_FEED',
        targetEntities: [],
        thirdPartyDistributionChannels: [],
      },
      isReshareDisabledByAuthor: false,
    });
    const post = await api('get', `/posts/${postId}`).expect(200);
    expect(post.body.targets[0].messages).toEqual([
      { id: made.urn, url: `https://www.linkedin.com/feed/update/${made.urn}` },
    ]);
  });

  it('uploads images (initialize, then PUT) with their alt text: one as media, several as multiImage', async () => {
    const member = linkedin.addMember();
    const id = await connect(member);
    const ref = `linkedin:${id}:urn:li:person:${member.sub}`;
    const png = await make.media(project, key, 'sample.png');
    await api('patch', `/media/${png}`).send({ alt_text: 'A lighthouse' }).expect(200);
    const one = await publish(ref, { text: 'One', media_ids: [png] });
    expect((await waitForPostStatus(t, one)).status).toBe('published');
    const jpg = await make.media(project, key, 'sample.jpg');
    const two = await publish(ref, { text: 'Two', media_ids: [png, jpg] });
    expect((await waitForPostStatus(t, two)).status).toBe('published');
    const [single, multi] = linkedin.postsBy(`urn:li:person:${member.sub}`);
    expect(single.content).toEqual({
      media: { id: expect.stringMatching(/^urn:li:image:/), altText: 'A lighthouse' },
    });
    expect(multi.content).toEqual({
      multiImage: {
        images: [
          { id: expect.stringMatching(/^urn:li:image:/), altText: 'A lighthouse' },
          { id: expect.stringMatching(/^urn:li:image:/) },
        ],
      },
    });
    expect(linkedin.callsOf('upload').every((c) => c.bytes > 0 && c.status === 201)).toBe(true);
  });

  it('publishes once when the answer is lost: the duplicate refusal names the post', async () => {
    const member = linkedin.addMember();
    const id = await connect(member);
    linkedin.script('create_post', { afterServing: 'drop' });
    const postId = await publish(`linkedin:${id}:urn:li:person:${member.sub}`, {
      text: 'Once (only)',
    });
    expect((await waitForPostStatus(t, postId)).status).toBe('published');
    const made = linkedin.postsBy(`urn:li:person:${member.sub}`);
    expect(made).toHaveLength(1);
    expect(linkedin.callsOf('create_post').at(-1)!.status).toBe(422);
    const post = await api('get', `/posts/${postId}`).expect(200);
    expect(post.body.targets[0].messages[0].id).toBe(made[0].urn);
  });

  it('reads the author’s posts where the refusal names none and the app may, else fails delivery_unconfirmed', async () => {
    linkedin.duplicateNamesPost = false;
    try {
      const plain = linkedin.addMember();
      const plainId = await connect(plain);
      linkedin.script('create_post', { afterServing: 'drop' });
      const unknown = await publish(`linkedin:${plainId}:urn:li:person:${plain.sub}`, {
        text: 'Unnamed',
      });
      expect((await waitForPostStatus(t, unknown)).status).toBe('failed');
      expect((await targetsOf(t, unknown))[0].error_code).toBe('delivery_unconfirmed');
      expect(linkedin.postsBy(`urn:li:person:${plain.sub}`)).toHaveLength(1);

      linkedin.extraScopes = ['r_member_social'];
      const reader = linkedin.addMember();
      const readerId = await connect(reader);
      linkedin.script('create_post', { afterServing: 'drop' });
      const found = await publish(`linkedin:${readerId}:urn:li:person:${reader.sub}`, {
        text: 'Found',
      });
      expect((await waitForPostStatus(t, found)).status).toBe('published');
      const made = linkedin.postsBy(`urn:li:person:${reader.sub}`);
      expect(made).toHaveLength(1);
      const post = await api('get', `/posts/${found}`).expect(200);
      expect(post.body.targets[0].messages[0].id).toBe(made[0].urn);
    } finally {
      linkedin.duplicateNamesPost = true;
      linkedin.extraScopes = [];
    }
  });

  it('renews with a refresh token, whose own end stays reconnect_by', async () => {
    linkedin.refreshTokens = true;
    try {
      const member = linkedin.addMember();
      const id = await connect(member);
      const before = await t.db.query(
        `SELECT credentials_encrypted, token_renewable, extract(epoch FROM reconnect_by - now()) AS left
           FROM accounts WHERE id = $1`,
        [id],
      );
      expect(before.rows[0].token_renewable).toBe(true);
      expect(Number(before.rows[0].left)).toBeGreaterThan(364 * 86_400);
      await t.app.get(TokenRenewals).forSend({
        accountId: id,
        platform: 'linkedin',
        sealed: before.rows[0].credentials_encrypted,
        expiresAtMs: Date.now() - 1,
        renewable: true,
      });
      const renewals = linkedin
        .callsOf('token')
        .filter((c) => c.body.grant_type === 'refresh_token' && c.status === 200);
      expect(renewals).toHaveLength(1);
      const after = await t.db.query(
        `SELECT credentials_encrypted, extract(epoch FROM reconnect_by - now()) AS left FROM accounts WHERE id = $1`,
        [id],
      );
      expect(after.rows[0].credentials_encrypted).not.toBe(before.rows[0].credentials_encrypted);
      expect(Math.abs(Number(after.rows[0].left) - Number(before.rows[0].left))).toBeLessThan(5);
      const postId = await publish(`linkedin:${id}:urn:li:person:${member.sub}`, {
        text: 'Renewed',
      });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
    } finally {
      linkedin.refreshTokens = false;
    }
  });

  it('flags an account whose token LinkedIn refuses (401) and cannot renew', async () => {
    const member = linkedin.addMember();
    const id = await connect(member);
    linkedin.revoke(member);
    const postId = await publish(`linkedin:${id}:urn:li:person:${member.sub}`, { text: 'Refused' });
    expect((await waitForPostStatus(t, postId)).status).toBe('failed');
    expect((await targetsOf(t, postId))[0].error_code).toBe('account_needs_reconnect');
    const { rows } = await t.db.query('SELECT needs_reconnect FROM accounts WHERE id = $1', [id]);
    expect(rows[0].needs_reconnect).toBe(true);
  });

  it('posts a thread’s one item as the first comment, and refuses a second', async () => {
    const member = linkedin.addMember();
    const id = await connect(member);
    const ref = `linkedin:${id}:urn:li:person:${member.sub}`;
    const postId = await publish(ref, {
      text: 'Read the details (below)',
      thread: [{ text: 'Details: https://example.com/details (and more)' }],
    });
    expect((await waitForPostStatus(t, postId)).status).toBe('published');
    const [made] = linkedin.postsBy(`urn:li:person:${member.sub}`);
    expect(linkedin.comments).toEqual(
      expect.arrayContaining([
        {
          urn: expect.stringMatching(/^urn:li:comment:\(urn:li:share:\d+,\d+\)$/),
          post: made.urn,
          actor: `urn:li:person:${member.sub}`,
          text: 'Details: https://example.com/details (and more)',
        },
      ]),
    );
    const comment = linkedin.comments.find((c) => c.post === made.urn)!;
    const post = await api('get', `/posts/${postId}`).expect(200);
    expect(post.body.targets[0].messages).toEqual([
      { id: made.urn, url: `https://www.linkedin.com/feed/update/${made.urn}` },
      {
        id: comment.urn,
        url: `https://www.linkedin.com/feed/update/${made.urn}?commentUrn=${encodeURIComponent(comment.urn)}`,
      },
    ]);
    const two = await api('post', '/posts/validate')
      .send({
        targets: [{ channel_ref: ref }],
        text: 'Two',
        thread: [{ text: 'a' }, { text: 'b' }],
      })
      .expect(200);
    expect(two.body.errors[0].code).toBe('thread_not_supported');
  });

  it('keeps to 3,000 characters and ten images, no video', async () => {
    const member = linkedin.addMember();
    const id = await connect(member);
    const ref = `linkedin:${id}:urn:li:person:${member.sub}`;
    const problems = async (body: Record<string, unknown>) =>
      (
        await api('post', '/posts/validate')
          .send({ targets: [{ channel_ref: ref }], ...body })
          .expect(200)
      ).body.errors as { code: string }[];
    expect(await problems({ text: 'a'.repeat(3000) })).toEqual([]);
    expect((await problems({ text: 'a'.repeat(3001) }))[0].code).toBe('text_too_long');
    const video = await make.media(project, key, 'sample.mp4');
    expect((await problems({ text: 'Video', media_ids: [video] }))[0].code).toBe(
      'media_not_supported',
    );
  });
});

import type { TargetFailureCode } from '../../src/domains/platforms/platform';
import { Factory, SignedInUser, TestProject } from '../support/factories/factories';
import { DiscordWorld, startWithDiscord } from '../support/factories/discord-world';
import { MastodonWorld, startWithMastodon } from '../support/factories/mastodon-world';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { waitForPostStatus } from '../support/publication';
import { BlueskyStandIn, XrpcScript } from '../support/stand-ins/bluesky-stand-in';
import { DiscordScriptedAnswer, DiscordStandIn } from '../support/stand-ins/discord-stand-in';
import { MastodonScript, MastodonStandIn } from '../support/stand-ins/mastodon-stand-in';
import { ScriptedAnswer, TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startTestApp, TestApp } from '../support/test-app';
import { sleep } from '../support/waits';

/**
 * Every error answer a platform documents, replayed through its stand-in at the send, and what
 * the target ends as. Three rules hold in every row: no false success (a `published` target is
 * exactly one message the platform made), no failure without a code an integrator can act on,
 * and no duplicate (the platform never makes the message twice). A new platform adds its table.
 */
interface Fault<Script> {
  fault: string;
  /** A function where the answer names a time, read when the row runs. */
  script: Script[] | (() => Script[]);
  /** `pending`: the target is still waiting (the platform asked for a wait longer than the test). */
  ends: 'published' | 'failed' | 'pending';
  code?: TargetFailureCode;
  /** Messages the platform made by the end: 0 or 1, never more. */
  made: 0 | 1;
}

/** The codes a failed target may carry: each one documented, each one says what to do. */
const ACTIONABLE: readonly string[] = [
  'account_needs_reconnect',
  'channel_needs_reconnect',
  'channel_removed',
  'delivery_failed',
  'delivery_unconfirmed',
  'media_unavailable',
  'telegram_rejected',
  'discord_rejected',
  'mastodon_rejected',
  'bluesky_rejected',
];

const ENV = {
  PUBLICATION_SEND_TIMEOUT_MS: '600',
  PUBLICATION_RETRY_BASE_MS: '20',
  PUBLICATION_MAX_TRIES: '3',
  RATE_LIMIT_CREATE_POST: '1000',
  RATE_LIMIT_OTHER: '1000',
};

interface TargetAnswer {
  status: string;
  error: { code: string; message: string } | null;
  messages: { id: string }[];
}

async function outcome(
  t: TestApp,
  projectId: number,
  key: string,
  postId: number,
  pending: boolean,
) {
  if (pending) await sleep(1_500);
  else await waitForPostStatus(t, postId, ['published', 'failed'], 20_000);
  const res = await t.http
    .get(`/api/public/v1/projects/${projectId}/posts/${postId}`)
    .set('Authorization', `Bearer ${key}`)
    .expect(200);
  return { status: res.body.status as string, target: (res.body.targets as TargetAnswer[])[0] };
}

const titled = <S>(row: Fault<S>) => ({
  ...row,
  outcome: row.code ? `${row.ends} ${row.code}` : row.ends,
});

const scriptOf = <S>(row: Fault<S>): S[] =>
  typeof row.script === 'function' ? row.script() : row.script;

function expectRules(
  row: Fault<unknown>,
  end: { status: string; target: TargetAnswer },
  madeIds: string[],
): void {
  expect(madeIds.length).toBe(row.made);
  expect(end.target.status).toBe(row.ends);
  if (row.ends === 'published') {
    expect(end.status).toBe('published');
    // The message Herald says it delivered is the one the platform made, once.
    expect(end.target.messages.map((m) => m.id)).toEqual(madeIds);
  } else if (row.ends === 'failed') {
    expect(end.status).toBe('failed');
    expect(ACTIONABLE).toContain(end.target.error?.code);
    expect(end.target.error).toEqual({ code: row.code, message: expect.stringMatching(/\S/) });
  } else {
    expect(end.status).toBe('publishing');
    expect(end.target.error).toBeNull();
  }
}

describe('Platform faults at the send', () => {
  describe('Telegram', () => {
    const TABLE: Fault<ScriptedAnswer>[] = [
      {
        fault: 'auth: 401 Unauthorized',
        script: [{ status: 401, description: 'Unauthorized' }],
        ends: 'failed',
        code: 'account_needs_reconnect',
        made: 0,
      },
      {
        fault: 'permission: 403 bot is not a member',
        script: [
          { status: 403, description: 'Forbidden: bot is not a member of the channel chat' },
        ],
        ends: 'failed',
        code: 'account_needs_reconnect',
        made: 0,
      },
      {
        fault: 'not found: 400 chat not found',
        script: [{ status: 400, description: 'Bad Request: chat not found' }],
        ends: 'failed',
        code: 'telegram_rejected',
        made: 0,
      },
      {
        fault: 'validation: 400 message is too long',
        script: [{ status: 400, description: 'Bad Request: message is too long' }],
        ends: 'failed',
        code: 'telegram_rejected',
        made: 0,
      },
      {
        fault: 'rate limit with retry_after',
        script: [{ status: 429, description: 'Too Many Requests: retry after 1', retryAfter: 1 }],
        ends: 'published',
        made: 1,
      },
      {
        fault: 'rate limit without a hint',
        script: [{ status: 429, description: 'Too Many Requests' }],
        ends: 'published',
        made: 1,
      },
      {
        fault: '5xx once',
        script: [{ status: 502, description: 'Bad Gateway' }],
        ends: 'published',
        made: 1,
      },
      {
        fault: '5xx on every try',
        script: [500, 500, 500].map((status) => ({ status, description: 'Internal Server Error' })),
        ends: 'failed',
        code: 'delivery_failed',
        made: 0,
      },
      {
        fault: 'time-out',
        script: [{ status: 200, hang: true }],
        ends: 'failed',
        code: 'delivery_unconfirmed',
        made: 0,
      },
      {
        fault: 'connection dropped before Telegram acted',
        script: [{ status: 200, drop: 'before' }],
        ends: 'failed',
        code: 'delivery_unconfirmed',
        made: 0,
      },
      {
        fault: 'connection dropped after Telegram acted',
        script: [{ status: 200, drop: 'after' }],
        ends: 'failed',
        code: 'delivery_unconfirmed',
        made: 1,
      },
      {
        fault: '200 without a message id',
        script: [{ status: 200, result: { date: 1, chat: { id: 1, type: 'channel' } } }],
        ends: 'failed',
        code: 'delivery_unconfirmed',
        made: 1,
      },
      {
        fault: 'malformed 200',
        script: [{ status: 200, raw: '<html>502 Bad Gateway</html>' }],
        ends: 'failed',
        code: 'delivery_unconfirmed',
        made: 1,
      },
    ];

    let world: TelegramWorld;
    let t: TestApp;
    let telegram: TelegramStandIn;
    let make: Factory;
    let owner: SignedInUser;
    let project: TestProject;
    let key: string;

    beforeAll(async () => {
      world = await startWithTelegram(ENV);
      ({ t, telegram, make } = world);
      ({ owner, project, key } = await make.owner('Telegram faults'));
    });

    afterAll(() => world?.close());

    it.each(TABLE.map(titled))('$fault → $outcome', async (row) => {
      // An account of its own: a refused token marks its account, not the next row's.
      const account = await make.telegramAccount(owner, project);
      const channel = await make.channel(owner, account.id);
      telegram.reset();
      telegram.script('sendMessage', ...scriptOf(row));
      const created = await t.http
        .post(`/api/public/v1/projects/${project.id}/posts`)
        .set('Authorization', `Bearer ${key}`)
        .send({ text: row.fault, targets: [{ channel_ref: channel.id }], publish_now: true })
        .expect(201);

      const end = await outcome(t, project.id, key, created.body.id, row.ends === 'pending');

      // A message made without an id the stand-in gave (a scripted result) counts as one.
      const made = telegram
        .callsOf('sendMessage')
        .flatMap((c) => c.madeIds?.map(String) ?? (c.made ? ['(no id)'] : []));
      expectRules(row, end, made);
    });
  });

  describe('Mastodon', () => {
    const refusal = (status: number, error: string): MastodonScript => ({ status, error });
    const TABLE: Fault<MastodonScript>[] = [
      {
        fault: 'auth: 401 The access token is invalid',
        script: [refusal(401, 'The access token is invalid')],
        ends: 'failed',
        code: 'account_needs_reconnect',
        made: 0,
      },
      {
        fault: 'permission: 403 outside the authorized scopes',
        script: [refusal(403, 'This action is outside the authorized scopes')],
        ends: 'failed',
        code: 'mastodon_rejected',
        made: 0,
      },
      {
        fault: 'not found: 404 Record not found',
        script: [refusal(404, 'Record not found')],
        ends: 'failed',
        code: 'mastodon_rejected',
        made: 0,
      },
      {
        fault: 'validation: 422 character limit',
        script: [refusal(422, 'Validation failed: Text character limit of 500 exceeded')],
        ends: 'failed',
        code: 'mastodon_rejected',
        made: 0,
      },
      {
        fault: 'rate limit with X-RateLimit-Reset',
        script: () => [
          {
            status: 429,
            error: 'Too many requests',
            headers: { 'x-ratelimit-reset': new Date(Date.now() + 1_500).toISOString() },
          },
        ],
        ends: 'published',
        made: 1,
      },
      // Without a hint Herald waits a minute, longer than the row: the target stays pending.
      {
        fault: 'rate limit without a hint',
        script: [{ ...refusal(429, 'Too many requests'), bare: true }],
        ends: 'pending',
        made: 0,
      },
      {
        fault: '5xx once',
        script: [refusal(503, 'Service Unavailable')],
        ends: 'published',
        made: 1,
      },
      {
        fault: '5xx on every try',
        script: [500, 500, 500].map((s) => refusal(s, 'Internal Server Error')),
        ends: 'failed',
        code: 'delivery_failed',
        made: 0,
      },
      {
        fault: 'time-out before the status was made',
        script: [{ hang: true }],
        ends: 'published',
        made: 1,
      },
      {
        fault: 'time-out after the status was made',
        script: [{ afterServing: 'hang' }],
        ends: 'published',
        made: 1,
      },
      {
        fault: 'connection dropped before Mastodon acted',
        script: [{ beforeServing: 'drop' }],
        ends: 'published',
        made: 1,
      },
      {
        fault: 'connection dropped after Mastodon acted',
        script: [{ afterServing: 'drop' }],
        ends: 'published',
        made: 1,
      },
      {
        fault: '200 without a status id',
        script: [{ afterServing: 'no_id' }],
        ends: 'published',
        made: 1,
      },
      {
        fault: 'malformed 200',
        script: [{ afterServing: 'malformed' }],
        ends: 'published',
        made: 1,
      },
    ];

    let world: MastodonWorld;
    let t: TestApp;
    let mastodon: MastodonStandIn;
    let owner: SignedInUser;
    let project: TestProject;
    let key: string;

    beforeAll(async () => {
      world = await startWithMastodon(ENV);
      ({ t, mastodon } = world);
      ({ owner, project, key } = await world.make.owner('Mastodon faults'));
    });

    afterAll(() => world?.close());

    it.each(TABLE.map(titled))('$fault → $outcome', async (row) => {
      const account = await world.mastodonAccount(owner, project, key);
      mastodon.script(
        'post_status',
        ...scriptOf(row).map((s) => ({ ...s, account: account.mastodonId })),
      );
      const created = await t.http
        .post(`/api/public/v1/projects/${project.id}/posts`)
        .set('Authorization', `Bearer ${key}`)
        .send({
          text: row.fault,
          targets: [{ channel_ref: account.channel.id }],
          publish_now: true,
        })
        .expect(201);

      const end = await outcome(t, project.id, key, created.body.id, row.ends === 'pending');

      expectRules(
        row,
        end,
        mastodon.statusesOf(account.mastodonId).map((s) => s.id),
      );
    });
  });

  describe('Discord', () => {
    const refusal = (status: number, message: string, code: number): DiscordScriptedAnswer => ({
      status,
      message,
      code,
    });
    const TABLE: Fault<DiscordScriptedAnswer>[] = [
      {
        fault: 'auth: 401 Unauthorized',
        script: [refusal(401, '401: Unauthorized', 0)],
        ends: 'failed',
        code: 'account_needs_reconnect',
        made: 0,
      },
      {
        fault: 'permission: 403 Missing Permissions',
        script: [refusal(403, 'Missing Permissions', 50013)],
        ends: 'failed',
        code: 'discord_rejected',
        made: 0,
      },
      {
        fault: 'not found: 404 Unknown Channel',
        script: [refusal(404, 'Unknown Channel', 10003)],
        ends: 'failed',
        code: 'discord_rejected',
        made: 0,
      },
      {
        fault: 'validation: 400 Invalid Form Body',
        script: [refusal(400, 'Invalid Form Body', 50035)],
        ends: 'failed',
        code: 'discord_rejected',
        made: 0,
      },
      {
        fault: 'rate limit with retry_after',
        script: [{ status: 429, retryAfter: 0.5 }],
        ends: 'published',
        made: 1,
      },
      // Every Discord 429 carries retry_after; the global one has no bucket headers.
      {
        fault: 'global rate limit, no bucket headers',
        script: [{ status: 429, retryAfter: 0.5, global: true }],
        ends: 'published',
        made: 1,
      },
      { fault: '5xx once', script: [{ status: 502 }], ends: 'published', made: 1 },
      {
        fault: '5xx on every try',
        script: [{ status: 500 }, { status: 500 }, { status: 500 }],
        ends: 'failed',
        code: 'delivery_failed',
        made: 0,
      },
      {
        fault: 'time-out before the message was made',
        script: [{ hang: true }],
        ends: 'published',
        made: 1,
      },
      {
        fault: 'time-out after the message was made',
        script: [{ afterCreate: 'hang' }],
        ends: 'published',
        made: 1,
      },
      {
        fault: 'connection dropped before Discord acted',
        script: [{ beforeCreate: 'drop' }],
        ends: 'published',
        made: 1,
      },
      {
        fault: 'connection dropped after Discord acted',
        script: [{ afterCreate: 'drop' }],
        ends: 'published',
        made: 1,
      },
      {
        fault: '200 without a message id',
        script: [{ afterCreate: 'no_id' }],
        ends: 'published',
        made: 1,
      },
      {
        fault: 'malformed 200',
        script: [{ afterCreate: 'malformed' }],
        ends: 'published',
        made: 1,
      },
    ];

    let world: DiscordWorld;
    let t: TestApp;
    let discord: DiscordStandIn;
    let owner: SignedInUser;
    let project: TestProject;
    let key: string;

    beforeAll(async () => {
      world = await startWithDiscord(ENV);
      ({ t, discord } = world);
      ({ owner, project, key } = await world.make.owner('Discord faults'));
    });

    afterAll(() => world?.close());

    it.each(TABLE.map(titled))('$fault → $outcome', async (row) => {
      const bot = await world.discordAccount(owner, project);
      const channel = await world.discordChannel(owner, bot.id);
      discord.script('createMessage', ...scriptOf(row));
      const created = await t.http
        .post(`/api/public/v1/projects/${project.id}/posts`)
        .set('Authorization', `Bearer ${key}`)
        .send({ text: row.fault, targets: [{ channel_ref: channel.id }], publish_now: true })
        .expect(201);

      const end = await outcome(t, project.id, key, created.body.id, row.ends === 'pending');

      expectRules(
        row,
        end,
        discord.messagesIn(channel.channel_id).map((m) => m.id),
      );
    });
  });

  describe('Bluesky', () => {
    const CREATE = 'com.atproto.repo.createRecord';
    const refusal = (status: number, error: string, message: string): XrpcScript => ({
      status,
      error,
      message,
    });
    const TABLE: Fault<XrpcScript>[] = [
      {
        fault: 'auth: 401 AuthenticationRequired',
        script: [
          refusal(401, 'AuthenticationRequired', 'Invalid identifier or password'),
          refusal(401, 'AuthenticationRequired', 'Invalid identifier or password'),
        ],
        ends: 'failed',
        code: 'account_needs_reconnect',
        made: 0,
      },
      {
        fault: 'permission: 403 Forbidden',
        script: [refusal(403, 'Forbidden', 'Not allowed to write to this repo')],
        ends: 'failed',
        code: 'bluesky_rejected',
        made: 0,
      },
      {
        fault: 'not found: 400 RepoNotFound',
        script: [refusal(400, 'RepoNotFound', 'Could not find repo')],
        ends: 'failed',
        code: 'bluesky_rejected',
        made: 0,
      },
      {
        fault: 'validation: 400 InvalidRecord',
        script: [
          refusal(400, 'InvalidRecord', 'Record/text must not be longer than 3000 graphemes'),
        ],
        ends: 'failed',
        code: 'bluesky_rejected',
        made: 0,
      },
      {
        fault: 'rate limit with ratelimit-reset',
        script: () => [
          {
            ...refusal(429, 'RateLimitExceeded', 'Rate Limit Exceeded'),
            headers: { 'ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 1) },
          },
        ],
        ends: 'published',
        made: 1,
      },
      {
        fault: 'rate limit without a hint',
        script: [refusal(429, 'RateLimitExceeded', 'Rate Limit Exceeded')],
        ends: 'published',
        made: 1,
      },
      {
        fault: '5xx once',
        script: [refusal(502, 'UpstreamFailure', 'Bad Gateway')],
        ends: 'published',
        made: 1,
      },
      {
        fault: '5xx on every try',
        script: [1, 2, 3].map(() => refusal(500, 'InternalServerError', 'Internal Server Error')),
        ends: 'failed',
        code: 'delivery_failed',
        made: 0,
      },
      {
        fault: 'time-out after the record was made',
        script: [{ hangAfterWork: true }],
        ends: 'published',
        made: 1,
      },
      {
        fault: 'connection dropped before the PDS acted',
        script: [{ dropBeforeWork: true }],
        ends: 'published',
        made: 1,
      },
      {
        fault: 'connection dropped after the PDS acted',
        script: [{ dropAfterWork: true }],
        ends: 'published',
        made: 1,
      },
      { fault: '200 without a uri', script: [{ afterWork: 'no_uri' }], ends: 'published', made: 1 },
      { fault: 'malformed 200', script: [{ afterWork: 'malformed' }], ends: 'published', made: 1 },
    ];

    let bsky: BlueskyStandIn;
    let t: TestApp;
    let owner: SignedInUser;
    let project: TestProject;
    let key: string;

    beforeAll(async () => {
      bsky = await new BlueskyStandIn().start();
      t = await startTestApp({ ...ENV, BLUESKY_SERVICE_URL: bsky.url });
      ({ owner, project, key } = await new Factory(t).owner('Bluesky faults'));
    });

    afterAll(async () => {
      await t?.close();
      await bsky?.stop();
    });

    it.each(TABLE.map(titled))('$fault → $outcome', async (row) => {
      const account = bsky.addAccount();
      const connected = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send({
          project_id: project.id,
          platform: 'bluesky',
          identifier: account.handle,
          app_password: account.appPassword,
        })
        .expect(201);
      bsky.script(CREATE, ...scriptOf(row));
      const created = await t.http
        .post(`/api/public/v1/projects/${project.id}/posts`)
        .set('Authorization', `Bearer ${key}`)
        .send({
          text: row.fault,
          targets: [{ channel_ref: `bluesky:${connected.body.id}:${account.did}` }],
          publish_now: true,
        })
        .expect(201);

      const end = await outcome(t, project.id, key, created.body.id, row.ends === 'pending');

      expectRules(
        row,
        end,
        bsky.recordsOf(account.did).map((r) => r.uri),
      );
    });
  });
});

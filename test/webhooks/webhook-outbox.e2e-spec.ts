import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Statement } from '../../src/infrastructure/database/prepared';
import { PublicationRepository } from '../../src/domains/publication/publication.repository';
import * as accountFlags from '../../src/domains/accounts/account-flags';
import { Factory, type TestChannel, type TestProject } from '../support/factories/factories';
import { publishNow } from '../support/publication';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startTestApp, type TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { sourceFiles } from '../support/source-files';

const SRC = join(__dirname, '..', '..', 'src');

/** The statements of PublicationRepository and the account flags that write webhook events, by name. */
function outboxStatements(): string[] {
  const holders = [PublicationRepository, accountFlags] as unknown as Record<string, unknown>[];
  return holders
    .flatMap((holder) =>
      Object.getOwnPropertyNames(holder).filter((name) => {
        const value = holder[name];
        return value instanceof Statement && value.text.includes('INSERT INTO webhook_events');
      }),
    )
    .sort();
}

/**
 * The webhook outbox's SQL (src/domains/webhooks/webhook-outbox.ts) runs inside the publication
 * statements that change a post's or an account's state. Each of those statements is run here on
 * the real database and must write its event and one send per subscribed endpoint, in the same
 * statement as the change, and nothing for a project without a subscribed endpoint. The list of
 * statements is read from the code: a new statement using the outbox fails here until it is run.
 */
describe('The webhook outbox inside the publication statements', () => {
  let telegram: TelegramStandIn;
  let receiver: WebhookReceiver;
  let t: TestApp;
  let repo: PublicationRepository;
  let subscribed: { project: TestProject; key: string; accountId: number; channel: TestChannel };
  let unsubscribed: typeof subscribed;

  beforeAll(async () => {
    telegram = await new TelegramStandIn().start();
    receiver = await new WebhookReceiver().start();
    // No worker: the test runs the statements itself.
    t = await startTestApp({
      TELEGRAM_API_BASE_URL: telegram.url,
      APP_ROLE: 'api',
      MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.1/32',
      RATE_LIMIT_CREATE_POST: '1000',
    });
    repo = t.app.get(PublicationRepository);
    const make = new Factory(t, telegram);
    const made = async (name: string) => {
      const { project, key, account, channels } = await make.ownerWithChannels(name);
      return { project, key, accountId: account.id, channel: channels[0] };
    };
    subscribed = await made('Outbox subscribed');
    unsubscribed = await made('Outbox unsubscribed');
    await t.http
      .post(`/api/public/v1/projects/${subscribed.project.id}/webhooks`)
      .set('Authorization', `Bearer ${subscribed.key}`)
      .send({
        url: receiver.url('/outbox'),
        events: ['post.published', 'post.failed', 'channel.needs_reconnect'],
      })
      .expect(201);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
    await telegram?.stop();
  });

  /** A post to the project's channel, claimed as the worker claims it; its one target. */
  async function claimedTarget(of: typeof subscribed, text: string) {
    const postId = await publishNow(t, of.project.id, of.key, of.channel.id, text);
    const post = await repo.claim(postId, 1);
    if (!post) throw new Error(`Post ${postId} could not be claimed`);
    return { postId, target: post.targets[0] };
  }

  async function eventsOf(projectId: number) {
    const { rows } = await t.db.query<{ type: string; post_id: number | null; sends: number }>(
      `SELECT e.type, e.post_id, (SELECT count(*)::int FROM webhook_sends s WHERE s.event_id = e.id) AS sends
         FROM webhook_events e WHERE e.project_id = $1 ORDER BY e.created_at, e.id`,
      [projectId],
    );
    return rows;
  }

  it('are the statements this spec runs, and no other file writes events inline', () => {
    expect(outboxStatements()).toEqual(['FINISH', 'FLAG_NEEDS_RECONNECT', 'STEP_SENT']);
    const users = sourceFiles(SRC, false)
      .filter((file) => /EventOutbox\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    // The account store's connect statement is run by test/connections/connections.e2e-spec.ts,
    // with and without a subscribed endpoint.
    expect(users.sort()).toEqual([
      'domains/accounts/account-flags.ts',
      'domains/accounts/accounts.repository.ts',
      'domains/publication/publication.repository.ts',
      'domains/webhooks/webhook-outbox.ts',
    ]);
  });

  it('STEP_SENT: the last step of the last target publishes the post with its post.published', async () => {
    for (const of of [subscribed, unsubscribed]) {
      const { postId, target } = await claimedTarget(of, 'Step sent');
      const published = await repo.stepSent(
        { id: target.id, postId, attempt: 1 },
        { messages: [{ id: '77', url: null }], listedIds: [77] },
        true,
      );
      expect(published).toBe(true);
    }
    expect(await eventsOf(subscribed.project.id)).toEqual([
      { type: 'post.published', post_id: expect.any(Number), sends: 1 },
    ]);
    expect(await eventsOf(unsubscribed.project.id)).toEqual([]);
  });

  it('FINISH: a post whose targets all ended, one failed, is failed with its post.failed', async () => {
    const before = (await eventsOf(subscribed.project.id)).length;
    for (const of of [subscribed, unsubscribed]) {
      const { postId, target } = await claimedTarget(of, 'Finish');
      await repo.failTarget(target.id, 'platform_rejected', 'Refused');
      expect(await repo.finish(postId, 1)).toBe('failed');
    }
    expect((await eventsOf(subscribed.project.id)).slice(before)).toEqual([
      { type: 'post.failed', post_id: expect.any(Number), sends: 1 },
    ]);
    expect(await eventsOf(unsubscribed.project.id)).toEqual([]);
  });

  it('FLAG_NEEDS_RECONNECT: the change from connected writes one channel.needs_reconnect', async () => {
    const before = (await eventsOf(subscribed.project.id)).length;
    await repo.flagNeedsReconnect(subscribed.accountId);
    await repo.flagNeedsReconnect(subscribed.accountId);
    await repo.flagNeedsReconnect(unsubscribed.accountId);
    expect((await eventsOf(subscribed.project.id)).slice(before)).toEqual([
      { type: 'channel.needs_reconnect', post_id: null, sends: 1 },
    ]);
    const { rows } = await t.db.query<{ data: { channel_refs: string[] } }>(
      `SELECT data FROM webhook_events WHERE project_id = $1 AND type = 'channel.needs_reconnect'`,
      [subscribed.project.id],
    );
    expect(rows[0].data.channel_refs).toEqual([subscribed.channel.id]);
  });
});

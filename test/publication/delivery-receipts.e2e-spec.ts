import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { RetryLater } from '../../src/domains/publication/publication.queue';
import { PublicationService } from '../../src/domains/publication/publication.service';
import { Factory } from '../support/factories/factories';
import { targetsOf, waitForPostStatus } from '../support/publication';
import { TcpProxy } from '../support/tcp-proxy';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/waits';

const FAST = {
  PUBLICATION_ENQUEUE_TIMEOUT_MS: '300',
  PUBLICATION_SWEEP_INTERVAL_MS: '300',
  PUBLICATION_RETRY_BASE_MS: '50',
  TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '6000',
};

/**
 * A send the platform confirmed is never reported failed or unconfirmed because the database
 * could not take its answer at that moment: the answer is kept until it is written.
 */
describe('A confirmed send survives a database outage', () => {
  let telegram: TelegramStandIn;
  let proxy: TcpProxy;
  let t: TestApp;

  beforeAll(async () => {
    telegram = await new TelegramStandIn().start();
    proxy = await new TcpProxy('127.0.0.1', 5432).start();
    t = await startTestApp(
      { ...FAST, TELEGRAM_API_BASE_URL: telegram.url },
      { databasePort: proxy.port },
    );
  });
  afterAll(async () => {
    proxy?.restore();
    await t?.close();
    await proxy?.stop();
    await telegram?.stop();
  });

  /** A post to two channels whose first send is answered only once `release` is called. */
  async function publishHeldPost(name: string) {
    const { project, key, channels } = await new Factory(t, telegram).ownerWithChannels(name, 2);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const chat = { id: Number(channels[0].channel_id), type: 'channel', title: 'first' };
    telegram.script('sendMessage', {
      status: 200,
      until: released,
      result: { message_id: 4242, date: Math.floor(Date.now() / 1000), chat },
    });
    const created = await t.http
      .post(`/api/public/v1/projects/${project.id}/posts`)
      .set('Authorization', `Bearer ${key}`)
      .send({
        text: name,
        targets: channels.map((c) => ({ channel_ref: c.id })),
        publish_now: true,
      })
      .expect(201);
    await waitFor(() => telegram.callsOf('sendMessage').length === 1);
    return { postId: created.body.id as number, channels, release };
  }

  /**
   * A held post whose first send Telegram answers once the database is cut; resolves when `runs`
   * runs of its job have failed (the first could not write the answer).
   */
  async function answeredDuringOutage(name: string, runs: number) {
    const failed: string[] = [];
    t.app
      .get<Queue>(getQueueToken('publication'))
      .on('failed', (_job, error: Error) => failed.push(error.message));
    const held = await publishHeldPost(name);
    proxy.cut('refuse');
    held.release();
    await waitFor(() => failed.length >= runs, 15_000);
    return held;
  }

  async function expectPublishedOnce(
    postId: number,
    channels: { channel_id: string; username: string | null }[],
  ) {
    expect((await waitForPostStatus(t, postId)).status).toBe('published');
    const targets = await targetsOf(t, postId);
    expect(targets.map((target) => [target.status, target.error_code])).toEqual([
      ['published', null],
      ['published', null],
    ]);
    expect(targets[0].message_ids).toEqual([4242]);
    expect(targets[1].message_ids).toEqual([expect.any(Number)]);
    // The kept answer carries its messages' links, whichever worker wrote it.
    const { rows } = await t.db.query<{ messages: unknown }>(
      'SELECT messages FROM post_targets WHERE post_id = $1 ORDER BY position, id',
      [postId],
    );
    expect(rows.map((row) => row.messages)).toEqual([
      [{ id: '4242', url: `https://t.me/${channels[0].username}/4242` }],
      [
        {
          id: String(targets[1].message_ids[0]),
          url: `https://t.me/${channels[1].username}/${targets[1].message_ids[0]}`,
        },
      ],
    ]);
    const sentTo = telegram.callsOf('sendMessage').map((call) => String(call.params.chat_id));
    expect(sentTo.sort()).toEqual(channels.map((c) => String(c.channel_id)).sort());
  }

  beforeEach(() => telegram.reset());

  it('the database cut between the answer and its write: published with its ids once it is back, each channel sent to once', async () => {
    // The run that got the answer could not write it, and a retry found the database still away.
    const { postId, channels } = await answeredDuringOutage('Delivered during an outage', 2);
    proxy.restore();

    await expectPublishedOnce(postId, channels);
  }, 60_000);

  it('a second run of the post while the first still waits for the answer does not take the send for lost', async () => {
    // As when Redis loses the queue while a post is being delivered: the recovery sweep enqueues
    // the post again, and its new run starts while the first one still waits for Telegram.
    const { postId, channels, release } = await publishHeldPost('Run twice');
    const { rows } = await t.db.query<{ publish_attempt: number }>(
      'SELECT publish_attempt FROM posts WHERE id = $1',
      [postId],
    );
    await expect(
      t.app.get(PublicationService).run(postId, rows[0].publish_attempt),
    ).rejects.toBeInstanceOf(RetryLater);
    expect((await targetsOf(t, postId))[0]).toMatchObject({ status: 'pending', error_code: null });
    release();

    await expectPublishedOnce(postId, channels);
  }, 60_000);

  it('a worker that could not write the answer leaves it in Redis: another worker writes it', async () => {
    const { postId, channels } = await answeredDuringOutage('Written by another worker', 1);
    // This worker never reaches the database again; another, which never saw the answer, runs
    // the job's next retry.
    const other = await startTestApp(
      { ...FAST, TELEGRAM_API_BASE_URL: telegram.url },
      { shareWith: t },
    );
    try {
      await expectPublishedOnce(postId, channels);
    } finally {
      await other.close();
      proxy.restore();
    }
  }, 60_000);
});

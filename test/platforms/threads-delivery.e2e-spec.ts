import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { projectApi } from '../support/factories/project-api';
import {
  startWithThreads,
  type ThreadsAccount,
  type ThreadsScene,
  type ThreadsWorld,
} from '../support/factories/threads-world';
import {
  runWaitingNow,
  targetsOf,
  waitForPostStatus,
  withWorkerPaused,
} from '../support/publication';
import type { ThreadsServer, ThreadsScript } from '../support/stand-ins/threads-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/waits';
import { WebhookReceiver } from '../support/webhook-receiver';

const MINUTE = 60_000;

/**
 * What can go wrong between Herald and Threads, end to end: each class of Graph error, answers
 * lost after Threads acted, media still processing, the profile's quota. Never a post twice.
 */
describe('Threads: delivery', () => {
  let world: ThreadsWorld;
  let t: TestApp;
  let threads: ThreadsServer;
  let scene: ThreadsScene;
  const { api, upload } = projectApi(() => ({ t, project: scene.project, key: scene.key }));
  const connect = () => scene.connect();
  const publish = (to: ThreadsAccount, body: Record<string, unknown>, apiKey?: string) =>
    scene.publish(to, body, apiKey);

  beforeAll(async () => {
    world = await startWithThreads({
      PUBLICATION_RETRY_BASE_MS: '100',
      PUBLICATION_SEND_TIMEOUT_MS: '3000',
    });
    ({ t, threads } = world);
    scene = await world.scene('Threads delivery');
  });

  afterAll(async () => {
    await world?.close();
  });

  const postsOf = (to: ThreadsAccount) =>
    threads.posts.filter((post) => post.userId === to.profile.id);
  const queue = () => t.app.get<Queue>(getQueueToken('publication'));

  const waitingThenRun = (postId: number, atLeastMs: number) => runWaitingNow(t, postId, atLeastMs);

  describe("Meta's rate limits are waited out, never failures, never a second post", () => {
    const limited = (code: number, headers: Record<string, string> = {}): ThreadsScript => ({
      status: 400,
      error: {
        message: `(#${code}) Application request limit reached`,
        type: 'OAuthException',
        code,
        is_transient: true,
      },
      headers,
    });
    it.each([
      ['4 (application)', limited(4), 5 * MINUTE],
      ['17 (user)', limited(17), 5 * MINUTE],
      ['613 (custom)', limited(613), 5 * MINUTE],
      [
        '80002 with X-Business-Use-Case-Usage',
        limited(80002, {
          'X-Business-Use-Case-Usage': JSON.stringify({
            '1784': [
              {
                type: 'threads',
                call_count: 100,
                total_cputime: 20,
                total_time: 30,
                estimated_time_to_regain_access: 12,
              },
            ],
          }),
        }),
        12 * MINUTE,
      ],
    ])('code %s on threads_publish', async (_name, script, waitMs) => {
      const to = await connect();
      threads.script('publish', script);
      const postId = await publish(to, { text: `Limited ${_name}` });
      await waitingThenRun(postId, waitMs);
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      expect(postsOf(to)).toHaveLength(1);
      // The container made before the limit is the one published.
      expect(
        threads.callsOf('create_container').filter((c) => c.path.includes(to.profile.id)),
      ).toHaveLength(1);
    });
  });

  it('a 5xx is retried; the container is read before it is published again', async () => {
    const to = await connect();
    threads.script('publish', {
      status: 500,
      error: {
        message: 'An unexpected error has occurred. Please retry your request later.',
        type: 'OAuthException',
        code: 2,
        is_transient: true,
      },
    });
    const postId = await publish(to, { text: 'Through a 5xx' });
    expect((await waitForPostStatus(t, postId)).status).toBe('published');
    expect(postsOf(to)).toHaveLength(1);
  });

  it("a refusal fails the target threads_rejected with Meta's message and code", async () => {
    const to = await connect();
    threads.script('create_container', {
      status: 400,
      error: {
        message: 'The parameter text is too long',
        type: 'OAuthException',
        code: 100,
        error_subcode: 4279009,
      },
    });
    const postId = await publish(to, { text: 'Refused' });
    expect((await waitForPostStatus(t, postId)).status).toBe('failed');
    const [target] = await targetsOf(t, postId);
    expect(target).toMatchObject({
      error_code: 'threads_rejected',
      error_message:
        'Threads refused the post: The parameter text is too long (code 100, subcode 4279009)',
    });
    expect(postsOf(to)).toHaveLength(0);
  });

  it('a video Threads cannot process fails threads_rejected with its reason, never published', async () => {
    const to = await connect();
    threads.videoError = 'FAILED_PROCESSING_VIDEO';
    try {
      const postId = await publish(to, { text: 'Broken', media_ids: [await upload('sample.mp4')] });
      expect((await waitForPostStatus(t, postId)).status).toBe('failed');
      const [target] = await targetsOf(t, postId);
      expect(target.error_code).toBe('threads_rejected');
      expect(target.error_message).toContain('FAILED_PROCESSING_VIDEO');
    } finally {
      threads.videoError = null;
    }
    expect(postsOf(to)).toHaveLength(0);
  });

  it('a dead token (190) flags the account once, with one channel.needs_reconnect event', async () => {
    const receiver = await new WebhookReceiver('127.0.0.2').start();
    try {
      const to = await connect();
      await api('post', '/webhooks')
        .send({ url: receiver.url('/dead'), events: ['channel.needs_reconnect'] })
        .expect(201);
      threads.revoke(to.profile);
      const first = await publish(to, { text: 'Dead token' });
      expect((await waitForPostStatus(t, first)).status).toBe('failed');
      expect((await targetsOf(t, first))[0]).toMatchObject({
        error_code: 'account_needs_reconnect',
      });
      expect((await targetsOf(t, first))[0].error_message).toContain(
        'Error validating access token',
      );
      const second = await api('post', '/posts')
        .send({ text: 'Again', targets: [{ channel_ref: to.channelRef }], publish_now: true })
        .expect(400);
      expect(second.body.error.code).toBe('channel_needs_reconnect');
      const { rows } = await t.db.query(
        `SELECT e.type FROM webhook_events e WHERE e.project_id = $1 AND e.type = 'channel.needs_reconnect' AND e.data->>'account_id' = $2`,
        [scene.project.id, String(to.id)],
      );
      expect(rows).toHaveLength(1);
      const account = await t.db.query('SELECT needs_reconnect FROM accounts WHERE id = $1', [
        to.id,
      ]);
      expect(account.rows[0].needs_reconnect).toBe(true);
    } finally {
      await receiver.stop();
    }
  });

  it('media Meta could not fetch (PUBLIC_BASE_URL private on the worker) fail media_url_not_public naming the setting; text still goes', async () => {
    const to = await connect();
    const images = () =>
      threads.callsOf('create_container').filter((c) => c.params.image_url).length;
    const imagesBefore = images();
    const hidden = await startTestApp(
      { ...world.env, PUBLIC_BASE_URL: 'http://10.1.2.3:3000', OUTBOUND_ALLOW_CIDRS: '' },
      { shareWith: t },
    );
    try {
      await withWorkerPaused(t, async () => {
        const withMedia = await publish(to, {
          text: 'Picture',
          media_ids: [await upload('sample.jpg')],
        });
        expect((await waitForPostStatus(t, withMedia)).status).toBe('failed');
        const [target] = await targetsOf(t, withMedia);
        expect(target.error_code).toBe('media_url_not_public');
        expect(target.error_message).toContain('PUBLIC_BASE_URL (http://10.1.2.3:3000)');
        const text = await publish(to, { text: 'Words only' });
        expect((await waitForPostStatus(t, text)).status).toBe('published');
      });
    } finally {
      await hidden.close();
    }
    expect(images()).toBe(imagesBefore);
  });

  describe('exactly once', () => {
    it('the answer of threads_publish lost: the container reads PUBLISHED, delivered once with its id and link', async () => {
      const to = await connect();
      threads.script('publish', { afterServing: 'drop' });
      const postId = await publish(to, { text: 'Answer lost' });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      expect(postsOf(to)).toHaveLength(1);
      expect(threads.callsOf('publish').filter((c) => c.path.includes(to.profile.id))).toHaveLength(
        1,
      );
      const [post] = postsOf(to);
      const answer = await api('get', `/posts/${postId}`).expect(200);
      expect(answer.body.targets[0]).toMatchObject({
        status: 'published',
        url: post.permalink,
        messages: [{ id: post.id, url: post.permalink }],
      });
    });

    it('a video still processing after the bounded wait is kept and published once it is FINISHED', async () => {
      const to = await connect();
      threads.videoReads = 1_000;
      let postId: number;
      try {
        postId = await publish(to, { text: 'Slow video', media_ids: [await upload('sample.mp4')] });
        await waitingThenRun(postId, 1_000);
      } finally {
        threads.videoReads = 2;
      }
      // The promoted run meets the same container still processing: waiting again, never publishing.
      await waitFor(async () =>
        (await queue().getDelayed()).some((job) => job.data.postId === postId),
      );
      const made = threads
        .callsOf('create_container')
        .filter((c) => c.path.includes(to.profile.id));
      expect(made).toHaveLength(1);
      expect(threads.unfinishedPublishes).toEqual([]);
      const [container] = [...threads.containers.values()].filter(
        (c) => c.userId === to.profile.id,
      );
      threads.finish(container.id);
      const [job] = (await queue().getDelayed()).filter((j) => j.data.postId === postId);
      await job.promote();
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      expect(postsOf(to)).toHaveLength(1);
      expect(postsOf(to)[0].container.id).toBe(container.id);
    });
  });

  it("the profile's quota used up (read from threads_publishing_limit): the post waits, nothing is made", async () => {
    const to = await connect();
    threads.usedElsewhere = 250;
    try {
      const postId = await publish(to, { text: 'Over quota' });
      await waitFor(async () =>
        (await queue().getDelayed()).some((job) => job.data.postId === postId),
      );
      expect(
        threads.callsOf('create_container').filter((c) => c.path.includes(to.profile.id)),
      ).toHaveLength(0);
      threads.usedElsewhere = 0;
      await waitingThenRun(postId, 5 * MINUTE);
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
    } finally {
      threads.usedElsewhere = 0;
    }
  });
});

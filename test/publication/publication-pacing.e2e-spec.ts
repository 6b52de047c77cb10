import { metricSample } from '../support/expectations';
import { Factory, TestChannel, TestProject } from '../support/factories/factories';
import { freePort } from '../support/free-port';
import { heraldReady, HeraldProcess, spawnHerald, stopHerald } from '../support/herald-process';
import { waitForPostStatus } from '../support/publication';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startTestApp, TEST_REDIS_URL, TestApp } from '../support/test-app';

/**
 * Delivery at Telegram's ceiling without provoking it. The stand-in enforces Telegram's
 * limits itself (429 with retry_after past them) and answers after a latency, and Herald is
 * configured with the same limits: nothing may be refused, nothing sent twice. Small scale, no
 * timing assertions (the rates are measured in bench/pipeline.ts).
 */
// Ten channels at a message a second each want twice what their bot's 5 a second allow.
const LIMITS = { botMessagesPerSecond: 5, chatMessagesPerMinute: 60 };
const METRICS_TOKEN = 'pacing-metrics-token-0123456789';
const ENV = {
  TELEGRAM_BOT_MESSAGES_PER_SECOND: String(LIMITS.botMessagesPerSecond),
  TELEGRAM_CHAT_MESSAGES_PER_MINUTE: String(LIMITS.chatMessagesPerMinute),
  RATE_LIMIT_CREATE_POST: '1000',
};

describe('Publication pacing against a rate-enforcing Telegram', () => {
  let telegram: TelegramStandIn;

  beforeAll(async () => {
    // The stand-in shares this process with the api app: on a busy machine (CI runs two test
    // files at once) its event loop may read a send a couple of hundred ms after it left.
    // Counting a second as 750 ms still refuses any rate a third over, and two workers with a
    // budget each would be twice over.
    telegram = (await new TelegramStandIn().start())
      .enforceLimits({ ...LIMITS, toleranceMs: 250 })
      .answerAfter(50, 30);
  });
  afterAll(async () => {
    await telegram?.stop();
  });
  beforeEach(() => telegram.reset());

  async function setUp(t: TestApp, channels: number) {
    const make = new Factory(t, telegram);
    const { owner, project, key } = await make.owner('Pacing');
    const account = await make.telegramAccount(owner, project);
    const refs: TestChannel[] = [];
    for (let i = 0; i < channels; i++) refs.push(await make.channel(owner, account.id));
    return { owner, project, key, channels: refs };
  }

  /** Creates the posts (publish_now) a few at a time; their ids in order. */
  async function publishAll(
    t: TestApp,
    world: { project: TestProject; key: string },
    texts: { text: string; channel: TestChannel }[],
  ): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < texts.length; i += 5) {
      const batch = await Promise.all(
        texts.slice(i, i + 5).map(({ text, channel }) =>
          t.http
            .post(`/api/public/v1/projects/${world.project.id}/posts`)
            .set('Authorization', `Bearer ${world.key}`)
            .send({ text, targets: [{ channel_ref: channel.id }], publish_now: true })
            .expect(201),
        ),
      );
      ids.push(...batch.map((res) => (res.body as { id: number }).id));
    }
    return ids;
  }

  /** Every post published, every text delivered exactly once, nothing refused with 429. */
  async function expectDeliveredOnceWithout429(t: TestApp, ids: number[], texts: string[]) {
    for (const id of ids)
      expect((await waitForPostStatus(t, id, undefined, 60_000)).status).toBe('published');
    const delivered = telegram.deliveredOf('sendMessage').map((c) => String(c.params.text));
    expect(delivered.sort()).toEqual([...texts].sort());
    expect(telegram.rateLimitedSends).toBe(0);
    expect(telegram.callsOf('sendMessage').filter((c) => c.rateLimited)).toEqual([]);
  }

  /**
   * An api app that only enqueues, and `workers` worker processes started once it has. Each worker
   * is a process of its own, as in production: workers sharing this test's event loop (with the
   * api app and the stand-in) leave their paced sends whenever that loop gets to them, and a loop
   * held up for a few hundred ms on a busy machine bunches sends that left Redis's pacing well
   * spaced into a burst the stand-in rightly refuses.
   * Returns how many targets each worker published. `workersFirst`: the workers are up before
   * the posts are created, instead of after.
   */
  async function deliverWith(
    workers: number,
    channels: number,
    posts: (channels: TestChannel[]) => { text: string; channel: TestChannel }[],
    { workersFirst = false } = {},
  ): Promise<number[]> {
    const api = await startTestApp({
      ...ENV,
      APP_ROLE: 'api',
      TELEGRAM_API_BASE_URL: telegram.url,
    });
    const started: HeraldProcess[] = [];
    try {
      const world = await setUp(api, channels);
      const texts = posts(world.channels);
      const startWorkers = async () => {
        for (let i = 0; i < workers; i++)
          started.push(spawnHerald('worker', await freePort(), workerEnv(api)));
        await Promise.all(started.map((worker) => heraldReady(worker, 120_000, METRICS_TOKEN)));
      };
      if (workersFirst) await startWorkers();
      // Unless workersFirst, the whole backlog is queued before a worker starts: its sends all
      // want to go at once.
      const ids = await publishAll(api, world, texts);
      if (!workersFirst) await startWorkers();
      await expectDeliveredOnceWithout429(
        api,
        ids,
        texts.map((x) => x.text),
      );
      return await Promise.all(started.map(published));
    } finally {
      await Promise.all(started.map((worker) => stopHerald(worker)));
      await api.close();
    }
  }

  /** A worker process's configuration: the api app's database, Redis keys and media. */
  function workerEnv(api: TestApp): Record<string, string> {
    return {
      ...ENV,
      DATABASE_URL: api.config.databaseUrl,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: api.config.redisKeyPrefix,
      APP_SECRET: api.config.appSecret,
      MEDIA_STORAGE_DIR: api.mediaDir,
      TELEGRAM_API_BASE_URL: telegram.url,
      METRICS_TOKEN,
      LOG_LEVEL: 'warn',
    };
  }

  /** Targets the worker published, from its own metrics. */
  async function published(worker: HeraldProcess): Promise<number> {
    const res = await fetch(`${worker.base}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const sample = metricSample(await res.text(), 'herald_publication_targets_total', {
      platform: 'telegram',
      outcome: 'published',
    });
    return sample ?? 0;
  }

  it('one worker: a busy chat and the other chats of its bot, at the configured limits, no 429', async () => {
    // 4 posts to the first channel (it must wait for its seconds), then 2 to each of 10 channels:
    // more at once than the bot's second allows, so pacing has to spread them.
    await deliverWith(1, 10, (channels) => [
      ...Array.from({ length: 4 }, (_, i) => ({ text: `busy ${i}`, channel: channels[0] })),
      ...Array.from({ length: 20 }, (_, i) => ({ text: `spread ${i}`, channel: channels[i % 10] })),
    ]);
  }, 180_000);

  it("two workers share one bot's budget through Redis: both deliver, no 429", async () => {
    // Both workers wait for jobs before the posts come (30 in 5 a time, six times what the bot's
    // second allows). With the backlog queued first, the worker that started first could deliver
    // all of it before the other was up on a busy machine, and the test would prove nothing.
    const counts = await deliverWith(
      2,
      12,
      (channels) =>
        Array.from({ length: 30 }, (_, i) => ({ text: `shared ${i}`, channel: channels[i % 12] })),
      { workersFirst: true },
    );
    // Both workers published, so the bot's budget was shared, not one worker's alone.
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[1]).toBeGreaterThan(0);
    expect(counts[0] + counts[1]).toBe(30);
  }, 180_000);

  it("one bot's backlog does not keep another bot's post waiting in the queue", async () => {
    // Bot A has 10 s of sends queued (50 at 5 a second) before bot B's one post. A worker holding
    // 12 jobs books A more than PACING_SAVE_AFTER_MS ahead, so A's later jobs give their worker
    // slots back (their slots kept) instead of waiting in them, and B's job is reached at once;
    // were the waits held in worker slots, B would wait for about 38 of A's sends.
    const env = { ...ENV, PUBLICATION_CONCURRENCY: '12', TELEGRAM_API_BASE_URL: telegram.url };
    const api = await startTestApp({ ...env, APP_ROLE: 'api' });
    let worker: TestApp | undefined;
    try {
      const make = new Factory(api, telegram);
      const { owner, project, key } = await make.owner('Backlog');
      const botA = await make.telegramAccount(owner, project);
      const botB = await make.telegramAccount(owner, project);
      const channelsA: TestChannel[] = [];
      // One post per channel: no chat wait, only the bot's second.
      for (let i = 0; i < 50; i++) channelsA.push(await make.channel(owner, botA.id));
      const channelB = await make.channel(owner, botB.id);
      const texts = [
        ...Array.from({ length: 50 }, (_, i) => ({ text: `A ${i}`, channel: channelsA[i] })),
        { text: 'B', channel: channelB },
      ];
      const ids = await publishAll(api, { project, key }, texts);
      worker = await startTestApp({ ...env, APP_ROLE: 'worker' }, { shareWith: api });
      await expectDeliveredOnceWithout429(
        api,
        ids,
        texts.map((x) => x.text),
      );
      const order = telegram.deliveredOf('sendMessage').map((c) => String(c.params.text));
      expect(order.indexOf('B')).toBeLessThan(25);
    } finally {
      await worker?.close();
      await api.close();
    }
  });
});

import { BLUESKY_FAST, startWithBluesky } from '../support/factories/bluesky-world';
import { BlueskyStandIn, type XrpcScript } from '../support/stand-ins/bluesky-stand-in';
import { describeThreads } from '../support/thread-cases';
import type { SendAnswer } from '../support/threads';

const ANSWERS: Record<SendAnswer, XrpcScript> = {
  ok: {},
  drop: { dropAfterWork: true },
  refuse: { status: 400, error: 'InvalidRequest', message: 'Invalid app.bsky.feed.post record' },
};

interface PostRecord {
  text: string;
  reply?: { root: { uri: string }; parent: { uri: string } };
  embed?: { images?: unknown[] };
}

describeThreads('Bluesky', async () => {
  const bsky = await new BlueskyStandIn().start();
  const world = await startWithBluesky(bsky, 'Bluesky threads', {
    ...BLUESKY_FAST,
    PUBLICATION_SEND_TIMEOUT_MS: '1000',
    BLUESKY_SERVICE_URL: bsky.url,
  });
  return {
    t: world.t,
    project: world.project,
    key: world.key,
    testKey: await world.make.apiKey(world.owner, { mode: 'test' }),
    // An account's feed is its one channel: an account for each test.
    channel: async () => (await world.connect(bsky.addAccount())).ref,
    made: (ref) =>
      bsky.recordsOf(ref.split(':').slice(2).join(':')).map(({ uri }) => {
        const { cid, value } = bsky.records.get(uri)!;
        const record = value as unknown as PostRecord;
        return {
          id: uri,
          text: record.text,
          parent: record.reply?.parent.uri ?? null,
          root: record.reply?.root.uri ?? null,
          media: record.embed?.images?.length ?? 0,
          reply: record.reply,
          cid,
        };
      }),
    replyOf: (parent, root) => ({
      root: { uri: root.id, cid: root.cid },
      parent: { uri: parent.id, cid: parent.cid },
    }),
    script: (...answers) =>
      bsky.script('com.atproto.repo.createRecord', ...answers.map((a) => ANSWERS[a])),
    // The PDS checks a reply's strong refs by their shape, never that the parent exists.
    unknownParent: 'accepted',
    rejected: 'bluesky_rejected',
    confirmsByKey: true,
    image: 'sample.png',
    textMax: 300,
    unit: 'graphemes',
    overLimit: { text: 'x'.repeat(301), code: 'text_too_long', field: 'thread[1].text' },
    close: () => world.close(),
  };
});

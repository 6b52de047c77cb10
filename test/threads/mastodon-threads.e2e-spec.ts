import { startWithMastodon } from '../support/factories/mastodon-world';
import type { MastodonScript } from '../support/stand-ins/mastodon-stand-in';
import { describeThreads } from '../support/thread-cases';
import { THREAD_ENV, type SendAnswer } from '../support/threads';

const ANSWERS: Record<SendAnswer, MastodonScript> = {
  ok: {},
  drop: { afterServing: 'drop' },
  refuse: { status: 422, error: 'Validation failed: Text is not allowed here' },
};

describeThreads('Mastodon', async () => {
  const world = await startWithMastodon(THREAD_ENV);
  const { owner, project, key } = await world.make.owner('Mastodon threads');
  const accounts = new Map<string, string>();
  return {
    t: world.t,
    project,
    key,
    testKey: await world.make.apiKey(owner, { mode: 'test' }),
    // An account's own timeline is its one channel: an account for each test.
    async channel() {
      const account = await world.mastodonAccount(owner, project, key);
      accounts.set(account.channel.id, account.mastodonId);
      return account.channel.id;
    },
    made: (ref) =>
      world.mastodon.statusesOf(accounts.get(ref) ?? '').map((status) => ({
        id: status.id,
        text: status.text,
        parent: status.inReplyToId,
        media: status.mediaIds.length,
        reply: world.mastodon.calls.find(
          (call) =>
            call.route === 'post_status' &&
            call.headers['idempotency-key'] === status.idempotencyKey,
        )?.body.in_reply_to_id,
      })),
    replyOf: (parent) => parent.id,
    script: (...answers) => world.mastodon.script('post_status', ...answers.map((a) => ANSWERS[a])),
    unknownParent: { code: 'mastodon_rejected', message: /does not appear to exist/ },
    rejected: 'mastodon_rejected',
    confirmsByKey: true,
    image: 'sample.png',
    textMax: 500,
    unit: 'graphemes',
    urlLength: 23,
    overLimit: { text: 'x'.repeat(501), code: 'text_too_long', field: 'thread[1].text' },
    close: () => world.close(),
  };
});

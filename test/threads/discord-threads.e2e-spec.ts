import { startWithDiscord } from '../support/factories/discord-world';
import type { DiscordScriptedAnswer } from '../support/stand-ins/discord-stand-in';
import { describeThreads } from '../support/thread-cases';
import { THREAD_ENV, type SendAnswer } from '../support/threads';

const ANSWERS: Record<SendAnswer, DiscordScriptedAnswer> = {
  ok: {},
  drop: { afterCreate: 'drop' },
  refuse: { status: 403, code: 50013, message: 'Missing Permissions' },
};

describeThreads('Discord', async () => {
  const world = await startWithDiscord(THREAD_ENV);
  const { owner, project, key } = await world.make.owner('Discord threads');
  const account = await world.discordAccount(owner, project);
  return {
    t: world.t,
    project,
    key,
    testKey: await world.make.apiKey(owner, { mode: 'test' }),
    // Discord paces each channel: a channel of its own for each test.
    channel: async () => (await world.discordChannel(owner, account.id)).id,
    made: (ref) =>
      world.discord.messages
        .filter((message) => message.channelId === ref.split(':')[2])
        .map((message) => ({
          id: message.id,
          text: message.content,
          parent: message.reference,
          media: message.files.length,
          reply: world.discord
            .callsOf('createMessage')
            .find((call) => call.json?.nonce === message.nonce)?.json?.message_reference,
        })),
    replyOf: (parent) => ({ message_id: parent.id, fail_if_not_exists: true }),
    script: (...answers) =>
      world.discord.script('createMessage', ...answers.map((a) => ANSWERS[a])),
    unknownParent: { code: 'discord_rejected', message: /Invalid Form Body|Unknown message/ },
    rejected: 'discord_rejected',
    confirmsByKey: true,
    image: 'sample.png',
    textMax: 2000,
    unit: 'utf16',
    overLimit: { text: 'x'.repeat(2001), code: 'text_too_long', field: 'thread[1].text' },
    close: () => world.close(),
  };
});

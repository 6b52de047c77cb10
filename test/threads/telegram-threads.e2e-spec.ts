import { startWithTelegram } from '../support/factories/telegram-world';
import { describeThreads } from '../support/thread-cases';
import { THREAD_ENV, type MadeMessage, type SendAnswer } from '../support/threads';
import type { ScriptedAnswer } from '../support/stand-ins/telegram-stand-in';

const ANSWERS: Record<SendAnswer, ScriptedAnswer> = {
  ok: { status: 200 },
  drop: { status: 200, drop: 'after' },
  refuse: { status: 400, description: 'Bad Request: message is too long' },
};

/** `reply_parameters` as sent: JSON text in a JSON body, parsed from a multipart one. */
function replyOf(parameters: unknown): { message_id?: number } | undefined {
  return (typeof parameters === 'string' ? JSON.parse(parameters) : parameters) as
    { message_id?: number } | undefined;
}

describeThreads('Telegram', async () => {
  const world = await startWithTelegram({
    ...THREAD_ENV,
    TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '1000',
    TELEGRAM_BOT_MESSAGES_PER_SECOND: '1000',
  });
  const { owner, project, key } = await world.make.owner('Telegram threads');
  const account = await world.make.telegramAccount(owner, project);
  return {
    t: world.t,
    project,
    key,
    testKey: await world.make.apiKey(owner, { mode: 'test' }),
    channel: async () => (await world.make.channel(owner, account.id)).id,
    made: (ref: string): MadeMessage[] =>
      world.telegram.calls
        .filter((call) => String(call.params.chat_id) === ref.split(':')[2] && call.madeIds)
        .map((call) => ({
          id: String(call.madeIds![0]),
          text: String(call.params.text ?? call.params.caption ?? ''),
          parent: replyOf(call.params.reply_parameters)?.message_id?.toString() ?? null,
          media: call.files.length,
          reply: replyOf(call.params.reply_parameters),
        })),
    replyOf: (parent) => ({ message_id: Number(parent.id) }),
    script: (...answers) => world.telegram.script('sendMessage', ...answers.map((a) => ANSWERS[a])),
    unknownParent: {
      code: 'telegram_rejected',
      message: /Bad Request: message to be replied not found/,
    },
    rejected: 'telegram_rejected',
    confirmsByKey: false,
    image: 'sample.png',
    textMax: 4096,
    unit: 'utf16',
    // The body's own limit is Telegram's: an item over it is refused by shape.
    overLimit: { text: 'x'.repeat(4097), code: 'validation_failed', field: 'thread.1.text' },
    close: () => world.close(),
  };
});

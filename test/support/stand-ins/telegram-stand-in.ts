import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { readMultipart, type RecordedFile } from './multipart';

export type { RecordedFile };

export interface RecordedCall {
  token: string;
  method: string;
  /** JSON body, or the multipart text fields (JSON-looking fields are parsed). */
  params: Record<string, unknown>;
  files: RecordedFile[];
  at: number;
  /** Answered 429 by the stand-in's own rate limits (`enforceLimits`): not delivered. */
  rateLimited?: boolean;
  /** Messages this call made in the chat (a send that succeeded, answered or not). */
  made?: number;
  /** Their message ids, where the stand-in gave them. */
  madeIds?: number[];
}

/** Telegram's limits as the stand-in enforces them (sliding windows, messages counted). */
export interface TelegramLimits {
  botMessagesPerSecond: number;
  chatMessagesPerMinute: number;
  /**
   * How much earlier than a second (or a minute) after the oldest counted send a send may arrive
   * without counting with it; 0 (strict) unless given. A test that runs Herald and the stand-in in
   * one busy process sees sends "arrive" as late as its event loop lets it read them.
   */
  toleranceMs?: number;
}

const SEND_METHODS = new Set(['sendMessage', 'sendPhoto', 'sendVideo', 'sendMediaGroup']);

export interface ScriptedAnswer {
  /** HTTP status and Telegram error_code; 200 means success with `result`. */
  status: number;
  description?: string;
  retryAfter?: number;
  result?: unknown;
  /** Accept the request and never answer (a send whose outcome is unknown). */
  hang?: boolean;
  /** Answer (normally, or with `status`) only after this many milliseconds. */
  delayMs?: number;
  /** Answer only once this settles: the test decides what happens before the answer arrives. */
  until?: Promise<unknown>;
  /**
   * Close the connection unanswered: `before` Telegram acts (nothing is sent), `after` it (the
   * message is made, the answer lost).
   */
  drop?: 'before' | 'after';
  /** Answer 200 with this body as it stands (not an envelope: a malformed answer). */
  raw?: string;
}

interface Bot {
  id: number;
  first_name: string;
  username: string;
}

interface Chat {
  id: number;
  type: 'channel' | 'supergroup' | 'group' | 'private';
  title: string;
  username?: string;
}

/**
 * A local Telegram Bot API: getMe, getChat, sendMessage, sendPhoto, sendVideo, sendMediaGroup,
 * JSON or multipart, answering in Telegram's envelope. Tests register bots and chats, script
 * failures, and read back every call it received.
 */
export class TelegramStandIn {
  readonly calls: RecordedCall[] = [];
  private readonly bots = new Map<string, Bot>();
  private readonly chats = new Map<string, Chat>();
  private readonly scripts = new Map<string, ScriptedAnswer[]>();
  private readonly hanging = new Set<ServerResponse>();
  /** Answers to lose: the connection is closed instead (`drop: 'after'`). */
  private readonly dropping = new WeakSet<ServerResponse>();
  private server?: Server;
  private nextMessageId = 1000;
  /** Messages made in each chat, by chat id: a reply must name one of them. */
  private readonly chatMessages = new Map<string, Set<number>>();
  private limits?: TelegramLimits;
  private latency = { ms: 0, jitterMs: 0 };
  /** Accepted sends' arrival times, per bot token and per bot token and chat. */
  private readonly botSends = new Map<string, number[]>();
  private readonly chatSends = new Map<string, number[]>();
  /** Sends answered 429 by `enforceLimits`, and sends in progress right now (and at most). */
  rateLimitedSends = 0;
  inFlight = 0;
  maxInFlight = 0;
  private nextBotId = 7_000_000;

  get url(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  /** Registers a bot token that getMe accepts; returns the token. */
  addBot(username = `herald_test_${this.bots.size + 1}_bot`): string {
    const id = this.nextBotId++;
    const token = `${id}:AA${Buffer.from(username).toString('hex').padEnd(33, 'x').slice(0, 33)}`;
    this.bots.set(token, { id, first_name: `Bot ${username}`, username });
    return token;
  }

  /** A new token for the bot of `token`, as BotFather's /revoke gives: the old one stops working. */
  rotateToken(token: string): string {
    const bot = this.bots.get(token);
    if (!bot) throw new Error('No such bot');
    this.bots.delete(token);
    const rotated = `${bot.id}:BB${randomBytes(17).toString('hex').slice(0, 33)}`;
    this.bots.set(rotated, bot);
    return rotated;
  }

  /** Forgets a chat, as when it is deleted on Telegram: getChat and sends answer "chat not found". */
  removeChat(id: number | string): void {
    const chat = this.chats.get(String(id));
    this.chats.delete(String(id));
    if (chat?.username) this.chats.delete(`@${chat.username}`);
  }

  /** Registers a chat getChat knows, by numeric id and, if given, @username. */
  addChat(chat: Chat): Chat {
    this.chats.set(String(chat.id), chat);
    if (chat.username) this.chats.set(`@${chat.username}`, chat);
    return chat;
  }

  /** The next calls of `method` get these answers, in order, before normal service resumes. */
  script(method: string, ...answers: ScriptedAnswer[]): void {
    this.scripts.set(method, [...(this.scripts.get(method) ?? []), ...answers]);
  }

  callsOf(method: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Calls of `method` that were delivered (not refused by the stand-in's rate limits). */
  deliveredOf(method: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method && !call.rateLimited);
  }

  /**
   * Enforces Telegram's limits like Telegram: a send that would make more than
   * `botMessagesPerSecond` messages of one bot in any second, or more than
   * `chatMessagesPerMinute` of one bot in one chat in any minute, answers 429 with retry_after.
   */
  enforceLimits(limits: TelegramLimits): this {
    this.limits = limits;
    return this;
  }

  /** Sends are answered after `ms`, plus or minus up to `jitterMs` (Telegram takes 100–300 ms). */
  answerAfter(ms: number, jitterMs = 0): this {
    this.latency = { ms, jitterMs };
    return this;
  }

  reset(): void {
    this.calls.length = 0;
    this.scripts.clear();
    this.botSends.clear();
    this.chatSends.clear();
    this.rateLimitedSends = 0;
    this.maxInFlight = this.inFlight;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(req.url ?? '');
    if (!match || req.method !== 'POST')
      return this.reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const token = decodeURIComponent(match[1]);
    const method = match[2];
    const arrived = Date.now();
    const { params, files } = await readBody(req);
    const call: RecordedCall = { token, method, params, files, at: arrived };
    this.calls.push(call);
    if (SEND_METHODS.has(method)) {
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      res.once('close', () => this.inFlight--);
      // Telegram counts a send when it arrives; its answer takes the latency either way.
      const retryAfter = this.overLimit(token, params, arrived);
      const { ms, jitterMs } = this.latency;
      const latency = ms + (Math.random() * 2 - 1) * jitterMs;
      if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
      if (retryAfter !== null) {
        call.rateLimited = true;
        this.rateLimitedSends++;
        return this.reply(res, 429, {
          ok: false,
          error_code: 429,
          description: `Too Many Requests: retry after ${retryAfter}`,
          parameters: { retry_after: retryAfter },
        });
      }
    }
    const scripted = this.scripts.get(method)?.shift();
    if (scripted?.hang) {
      this.hanging.add(res);
      return;
    }
    if (scripted?.drop === 'before') {
      res.socket?.destroy();
      return;
    }
    if (scripted?.drop === 'after') this.dropping.add(res);
    if (scripted?.raw !== undefined) {
      call.made = SEND_METHODS.has(method) ? 1 : 0;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(scripted.raw);
      return;
    }
    if (scripted?.delayMs) await new Promise((resolve) => setTimeout(resolve, scripted.delayMs));
    if (scripted?.until) await scripted.until;
    if (scripted && scripted.status !== 200) {
      return this.reply(res, scripted.status, {
        ok: false,
        error_code: scripted.status,
        description: scripted.description ?? `Error ${scripted.status}`,
        ...(scripted.retryAfter !== undefined
          ? { parameters: { retry_after: scripted.retryAfter } }
          : {}),
      });
    }
    const bot = this.bots.get(token);
    if (!bot)
      return this.reply(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    if (scripted?.result !== undefined) {
      if (SEND_METHODS.has(method)) call.made = 1;
      return this.reply(res, 200, { ok: true, result: scripted.result });
    }
    return this.answer(res, call, bot, method, params, files);
  }

  /**
   * Counts the send against its bot's second and its chat's minute, as of its arrival; the
   * seconds to wait when it is one too many (it is then not counted), else null.
   */
  private overLimit(token: string, params: Record<string, unknown>, at: number): number | null {
    if (!this.limits) return null;
    const messages = Array.isArray(params.media) ? params.media.length : 1;
    const chatKey = `${token}/${String(params.chat_id)}`;
    const tolerance = this.limits.toleranceMs ?? 0;
    const bot = recent(this.botSends, token, at - 1_000 + tolerance);
    const chat = recent(this.chatSends, chatKey, at - 60_000 + tolerance);
    const waits: number[] = [];
    if (bot.length + messages > this.limits.botMessagesPerSecond)
      waits.push(
        bot[bot.length + messages - this.limits.botMessagesPerSecond - 1] + 1_000 - tolerance - at,
      );
    if (chat.length + messages > this.limits.chatMessagesPerMinute)
      waits.push(
        chat[chat.length + messages - this.limits.chatMessagesPerMinute - 1] +
          60_000 -
          tolerance -
          at,
      );
    if (waits.length > 0) return Math.max(1, Math.ceil(Math.max(...waits) / 1000));
    for (let i = 0; i < messages; i++) {
      insertSorted(bot, at);
      insertSorted(chat, at);
    }
    return null;
  }

  private answer(
    res: ServerResponse,
    call: RecordedCall,
    bot: Bot,
    method: string,
    params: Record<string, unknown>,
    files: RecordedFile[],
  ): void {
    if (method === 'getMe')
      return this.reply(res, 200, {
        ok: true,
        result: { id: bot.id, is_bot: true, first_name: bot.first_name, username: bot.username },
      });
    const chat = this.chats.get(String(params.chat_id));
    if (!chat)
      return this.reply(res, 400, {
        ok: false,
        error_code: 400,
        description: 'Bad Request: chat not found',
      });
    const made = this.chatMessages.get(String(chat.id)) ?? new Set<number>();
    this.chatMessages.set(String(chat.id), made);
    const replyTo = repliedId(params.reply_parameters);
    // Without allow_sending_without_reply, Telegram refuses a reply to a message it cannot find.
    if (SEND_METHODS.has(method) && replyTo !== null && !made.has(replyTo))
      return this.reply(res, 400, {
        ok: false,
        error_code: 400,
        description: 'Bad Request: message to be replied not found',
      });
    const message = () => {
      const id = this.nextMessageId++;
      made.add(id);
      call.madeIds = [...(call.madeIds ?? []), id];
      call.made = call.madeIds.length;
      return { message_id: id, date: Math.floor(Date.now() / 1000), chat };
    };
    switch (method) {
      case 'getChat':
        return this.reply(res, 200, { ok: true, result: chat });
      case 'sendMessage':
      case 'sendPhoto':
      case 'sendVideo':
        return this.reply(res, 200, { ok: true, result: message() });
      case 'sendMediaGroup': {
        const media = Array.isArray(params.media) ? params.media : [];
        if (media.length < 2 || media.length > 10) {
          return this.reply(res, 400, {
            ok: false,
            error_code: 400,
            description: 'Bad Request: wrong number of media',
          });
        }
        void files;
        return this.reply(res, 200, { ok: true, result: media.map(() => message()) });
      }
      default:
        return this.reply(res, 404, {
          ok: false,
          error_code: 404,
          description: 'Not Found: method not found',
        });
    }
  }

  private reply(res: ServerResponse, status: number, body: unknown): void {
    if (this.dropping.has(res)) {
      res.socket?.destroy();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}

/** `reply_parameters.message_id`, given as an object or as its JSON; null without one. */
function repliedId(parameters: unknown): number | null {
  const parsed = typeof parameters === 'string' ? parseMaybeJson(parameters) : parameters;
  if (parsed === undefined || parsed === null) return null;
  const id = (parsed as { message_id?: unknown }).message_id;
  return typeof id === 'number' ? id : -1;
}

/** The times in `map[key]` after `since`, older ones dropped (the list stays in `map`). */
function recent(map: Map<string, number[]>, key: string, since: number): number[] {
  const times = map.get(key) ?? [];
  let drop = 0;
  while (drop < times.length && times[drop] <= since) drop++;
  if (drop > 0) times.splice(0, drop);
  map.set(key, times);
  return times;
}

function insertSorted(times: number[], at: number): void {
  let i = times.length;
  while (i > 0 && times[i - 1] > at) i--;
  times.splice(i, 0, at);
}

async function readBody(
  req: IncomingMessage,
): Promise<{ params: Record<string, unknown>; files: RecordedFile[] }> {
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) {
    const { fields, files } = await readMultipart(req);
    const params = Object.fromEntries(
      Object.entries(fields).map(([name, value]) => [name, parseMaybeJson(value)]),
    );
    return { params, files };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return { params: text ? (JSON.parse(text) as Record<string, unknown>) : {}, files: [] };
}

function parseMaybeJson(value: string): unknown {
  if (/^[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

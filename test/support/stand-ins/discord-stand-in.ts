import { randomBytes } from 'node:crypto';
import {
  createServer,
  IncomingHttpHeaders,
  IncomingMessage,
  Server,
  ServerResponse,
} from 'node:http';
import { readMultipart, type RecordedFile } from './multipart';
import { AddressInfo, Socket } from 'node:net';

/** The path of Discord's REST API version Herald speaks, under the stand-in's address. */
const API_PREFIX = '/api/v10';

/** Discord's epoch (the first second of 2015), the origin of its snowflake ids. */
const DISCORD_EPOCH_MS = 1_420_070_400_000;

/** A file of a multipart request to Discord. */
export type DiscordRecordedFile = RecordedFile;

export type DiscordRoute = 'getCurrentUser' | 'getChannel' | 'createMessage' | 'unknown';

export interface DiscordRecordedCall {
  httpMethod: string;
  /** The path under /api/v10. */
  path: string;
  route: DiscordRoute;
  /** The path's channel id, for the channel routes. */
  channelId: string | null;
  headers: IncomingHttpHeaders;
  /** The token of an `Authorization: Bot <token>` header, else null. */
  token: string | null;
  /** The JSON body, or a multipart body's `payload_json`, parsed. */
  json: Record<string, unknown> | null;
  /** A multipart body's text fields, as sent. */
  fields: Record<string, string>;
  files: DiscordRecordedFile[];
  at: number;
  /** The status the stand-in answered with; undefined while unanswered (or never answered). */
  status?: number;
  /** Answered 429 by the stand-in's own rate limits: not delivered. */
  rateLimited?: boolean;
}

/** A message the stand-in made, as a channel would show it. */
export interface DiscordStandInMessage {
  id: string;
  channelId: string;
  botId: string;
  content: string;
  nonce: string | null;
  /** The message it replies to (`message_reference.message_id`), else null. */
  reference: string | null;
  attachments: { id: string; filename: string; size: number; content_type: string }[];
  files: DiscordRecordedFile[];
  at: number;
}

export interface DiscordScriptedAnswer {
  /** Answer this status (with `message` and `code`, or a 429's `retryAfter` and `global`). */
  status?: number;
  message?: string;
  code?: number;
  /** Seconds, with a fraction, as Discord's 429 body gives them. */
  retryAfter?: number;
  global?: boolean;
  /** Accept the request and never answer; nothing is made. */
  hang?: boolean;
  /**
   * Make the message as usual, then never answer (`hang`), drop the connection (`drop`), answer
   * 200 with a body cut off (`malformed`) or with the message but no `id` (`no_id`).
   */
  afterCreate?: 'hang' | 'drop' | 'malformed' | 'no_id';
  /** Close the connection once the request is read, before anything is made. */
  beforeCreate?: 'drop';
  /** Go on only after this many milliseconds. */
  delayMs?: number;
  /** Go on only once this settles: the test decides what happens before the answer. */
  until?: Promise<unknown>;
}

/** Discord's limits as the stand-in enforces them, per bot. */
export interface DiscordLimits {
  /** Messages one bot may post in one channel per `messageWindowMs` (Discord: 5 per 5 s). */
  messagesPerChannel: number;
  messageWindowMs: number;
  /** Requests of one bot over all routes per second (Discord: 50). */
  globalPerSecond: number;
  /**
   * How much earlier than the end of a window a request may arrive and count in the next one;
   * 0 (strict) unless given. A test running Herald and the stand-in in one busy process sees
   * requests arrive as late as its event loop lets it read them.
   */
  toleranceMs?: number;
}

export const DISCORD_LIMITS: DiscordLimits = {
  messagesPerChannel: 5,
  messageWindowMs: 5_000,
  globalPerSecond: 50,
};

interface Bot {
  id: string;
  username: string;
}

export interface DiscordStandInChannel {
  id: string;
  /** 0 text, 2 voice, 4 category, 5 announcement, … */
  type: number;
  name: string;
  guild_id: string;
  /** The bot may see the channel but not post in it (403 Missing Permissions). */
  missingPermissions?: boolean;
}

/** A window of one rate-limit bucket: when it started and how much of it is used. */
interface Window {
  startedAt: number;
  used: number;
}

/** Bucket hashes as Discord names them: the same for every channel (the channel counts apart). */
const BUCKETS: Record<Exclude<DiscordRoute, 'unknown'>, string> = {
  getCurrentUser: '2f3a7c1e9b0d4c58a6e1f0b7d3c2a914',
  getChannel: '7d0e5b3c1a2f4e69b8c7d6e5f4a3b2c1',
  createMessage: '80c17d2f203122d936070c88c8d10f33',
};

/** The bucket limits of the routes that post nothing: generous, as Discord's are. */
const READ_BUCKET = { limit: 50, windowMs: 1_000 };

/**
 * A local Discord REST API (v10): GET /users/@me, GET /channels/{id}, POST
 * /channels/{id}/messages (JSON, or multipart with payload_json and files[n]), with Discord's
 * bot authorization, error bodies, nonce deduplication, per-route buckets and the global limit,
 * and their rate-limit headers. Tests register bots and channels, script answers, and read back
 * every call and every message made.
 */
export class DiscordStandIn {
  readonly calls: DiscordRecordedCall[] = [];
  readonly messages: DiscordStandInMessage[] = [];
  private readonly bots = new Map<string, Bot>();
  private readonly channels = new Map<string, DiscordStandInChannel>();
  private readonly scripts = new Map<DiscordRoute, DiscordScriptedAnswer[]>();
  private readonly hanging = new Set<ServerResponse>();
  private readonly sockets = new Set<Socket>();
  private server?: Server;
  private limits: DiscordLimits | null = DISCORD_LIMITS;
  /** How long a nonce finds the message it made (Discord: "the past few minutes"). */
  nonceWindowMs = 5 * 60_000;
  /** Bucket windows, by bot, route and channel; the global window, by bot. */
  private readonly buckets = new Map<string, Window>();
  private readonly globals = new Map<string, Window>();
  rateLimitedCalls = 0;
  private increment = 0;
  private latency = { ms: 0, jitterMs: 0 };

  /** The stand-in's API base, as DISCORD_API_BASE_URL would name Discord's. */
  get url(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}${API_PREFIX}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  /** Registers a bot; returns its token, shaped like Discord's (id in base64, time, signature). */
  addBot(username = `herald-test-${this.bots.size + 1}`): string {
    const id = this.snowflake();
    const token = [
      Buffer.from(id).toString('base64url'),
      randomBytes(4).toString('base64url'),
      randomBytes(27).toString('base64url'),
    ].join('.');
    this.bots.set(token, { id, username });
    return token;
  }

  /** The id of the bot a token belongs to. */
  botId(token: string): string {
    const bot = this.bots.get(token);
    if (!bot) throw new Error('No such bot');
    return bot.id;
  }

  /** Registers a channel every bot can see; text (type 0) in a new guild unless told. */
  addChannel(channel: Partial<DiscordStandInChannel> = {}): DiscordStandInChannel {
    const made: DiscordStandInChannel = {
      id: this.snowflake(),
      type: 0,
      name: `general-${this.channels.size + 1}`,
      guild_id: this.snowflake(),
      ...channel,
    };
    this.channels.set(made.id, made);
    return made;
  }

  channelById(id: string): DiscordStandInChannel {
    const channel = this.channels.get(id);
    if (!channel) throw new Error(`The stand-in has no channel ${id}`);
    return channel;
  }

  /** Deletes a channel, as its server's admin does: reads and sends answer 404 Unknown Channel. */
  removeChannel(id: string): void {
    this.channels.delete(id);
  }

  /** The next calls of `route` get these answers, in order, before normal service resumes. */
  script(route: DiscordRoute, ...answers: DiscordScriptedAnswer[]): void {
    this.scripts.set(route, [...(this.scripts.get(route) ?? []), ...answers]);
  }

  callsOf(route: DiscordRoute): DiscordRecordedCall[] {
    return this.calls.filter((call) => call.route === route);
  }

  messagesIn(channelId: string): DiscordStandInMessage[] {
    return this.messages.filter((message) => message.channelId === channelId);
  }

  /** Enforces these limits instead of Discord's; null enforces none. */
  enforceLimits(limits: DiscordLimits | null): this {
    this.limits = limits;
    return this;
  }

  /**
   * Answers leave `ms` after the request was served, plus or minus up to `jitterMs` (Discord takes
   * 100–300 ms); requests still count against the limits when they arrive.
   */
  answerAfter(ms: number, jitterMs = 0): this {
    this.latency = { ms, jitterMs };
    return this;
  }

  reset(): void {
    this.calls.length = 0;
    this.messages.length = 0;
    this.scripts.clear();
    this.buckets.clear();
    this.globals.clear();
    this.rateLimitedCalls = 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const path = url.pathname.startsWith(API_PREFIX)
      ? url.pathname.slice(API_PREFIX.length)
      : url.pathname;
    const { route, channelId } = routeOf(req.method ?? '', path);
    const authorization = req.headers.authorization ?? '';
    const token = authorization.startsWith('Bot ') ? authorization.slice(4) : null;
    const call: DiscordRecordedCall = {
      httpMethod: req.method ?? '',
      path,
      route,
      channelId,
      headers: req.headers,
      token,
      json: null,
      fields: {},
      files: [],
      at: Date.now(),
    };
    this.calls.push(call);
    try {
      Object.assign(call, await readBody(req));
    } catch {
      return this.reply(call, res, 400, {
        message: 'The request body contains invalid JSON.',
        code: 50109,
      });
    }
    if (route === 'unknown')
      return this.reply(call, res, 404, { message: '404: Not Found', code: 0 });
    const bot = token === null ? undefined : this.bots.get(token);
    const limited = this.overLimit(bot?.id ?? token ?? '-', route, channelId, call.at);
    if (limited) {
      call.rateLimited = true;
      this.rateLimitedCalls++;
      return this.reply(call, res, 429, limited.body, limited.headers);
    }
    const headers = this.bucketHeaders(bot?.id ?? token ?? '-', route, channelId);
    const scripted = this.scripts.get(route)?.shift();
    if (scripted?.hang) {
      this.hanging.add(res);
      return;
    }
    if (scripted?.beforeCreate === 'drop') {
      call.status = 0;
      res.socket?.destroy();
      return;
    }
    if (scripted?.delayMs) await new Promise((resolve) => setTimeout(resolve, scripted.delayMs));
    if (scripted?.until) await scripted.until;
    if (scripted?.status !== undefined && scripted.status !== 200)
      return this.scripted(call, res, scripted, headers);
    if (!bot) return this.reply(call, res, 401, { message: '401: Unauthorized', code: 0 }, headers);
    switch (route) {
      case 'getCurrentUser':
        return this.reply(call, res, 200, userObject(bot), headers);
      case 'getChannel': {
        const channel = this.channels.get(channelId ?? '');
        if (!channel)
          return this.reply(call, res, 404, { message: 'Unknown Channel', code: 10003 }, headers);
        return this.reply(call, res, 200, channelObject(channel), headers);
      }
      case 'createMessage':
        return this.createMessage(call, res, bot, headers, scripted?.afterCreate);
    }
  }

  private createMessage(
    call: DiscordRecordedCall,
    res: ServerResponse,
    bot: Bot,
    headers: Record<string, string>,
    afterCreate: DiscordScriptedAnswer['afterCreate'],
  ): void {
    const channel = this.channels.get(call.channelId ?? '');
    if (!channel)
      return this.reply(call, res, 404, { message: 'Unknown Channel', code: 10003 }, headers);
    if (![0, 2, 5].includes(channel.type)) {
      return this.reply(
        call,
        res,
        400,
        { message: 'Cannot send messages in a non-text channel', code: 50008 },
        headers,
      );
    }
    if (channel.missingPermissions)
      return this.reply(call, res, 403, { message: 'Missing Permissions', code: 50013 }, headers);
    const body = call.json ?? {};
    const tooLarge = call.files.find((file) => file.bytes.length > 10 * 1024 * 1024);
    if (tooLarge)
      return this.reply(
        call,
        res,
        413,
        { message: 'Request entity too large', code: 40005 },
        headers,
      );
    const invalid = formErrors(body, call.files);
    if (invalid)
      return this.reply(
        call,
        res,
        400,
        { message: 'Invalid Form Body', code: 50035, errors: invalid },
        headers,
      );
    const content = typeof body.content === 'string' ? body.content : '';
    if (content === '' && call.files.length === 0)
      return this.reply(
        call,
        res,
        400,
        { message: 'Cannot send an empty message', code: 50006 },
        headers,
      );
    const reference = referencedId(body.message_reference);
    // Discord refuses a reply to a message that is not in the channel (fail_if_not_exists).
    if (
      reference !== null &&
      !this.messages.some((m) => m.id === reference && m.channelId === channel.id)
    )
      return this.reply(
        call,
        res,
        400,
        {
          message: 'Invalid Form Body',
          code: 50035,
          errors: {
            message_reference: {
              _errors: [{ code: 'REPLIES_UNKNOWN_MESSAGE', message: 'Unknown message' }],
            },
          },
        },
        headers,
      );
    const nonce = body.nonce === undefined || body.nonce === null ? null : String(body.nonce);
    const existing =
      body.enforce_nonce === true && nonce !== null
        ? this.messages.find(
            (m) => m.botId === bot.id && m.nonce === nonce && call.at - m.at < this.nonceWindowMs,
          )
        : undefined;
    const message = existing ?? this.make(call, bot, channel, content, nonce, body);
    const answer = messageObject(message, bot, channel);
    if (afterCreate === 'hang') {
      this.hanging.add(res);
      return;
    }
    if (afterCreate === 'drop') {
      call.status = 0;
      res.socket?.destroy();
      return;
    }
    if (afterCreate === 'malformed') {
      call.status = 200;
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      res.end('{"id": "12');
      return;
    }
    if (afterCreate === 'no_id') {
      const { id: _id, ...rest } = answer as Record<string, unknown>;
      return this.reply(call, res, 200, rest, headers);
    }
    return this.reply(call, res, 200, answer, headers);
  }

  private make(
    call: DiscordRecordedCall,
    bot: Bot,
    channel: DiscordStandInChannel,
    content: string,
    nonce: string | null,
    body: Record<string, unknown>,
  ): DiscordStandInMessage {
    const named = Array.isArray(body.attachments)
      ? (body.attachments as { id?: unknown; filename?: unknown }[])
      : [];
    const message: DiscordStandInMessage = {
      id: this.snowflake(),
      channelId: channel.id,
      botId: bot.id,
      content,
      nonce,
      reference: referencedId(body.message_reference),
      attachments: call.files.map((file) => {
        const index = file.field.slice('files['.length, -1);
        const entry = named.find((a) => String(a.id) === index);
        return {
          id: this.snowflake(),
          filename: typeof entry?.filename === 'string' ? entry.filename : file.filename,
          size: file.bytes.length,
          content_type: file.mimeType,
        };
      }),
      files: call.files,
      at: call.at,
    };
    this.messages.push(message);
    return message;
  }

  /**
   * Counts the request against the bot's global second and its route's bucket (per channel for
   * the channel routes), as of its arrival; a 429's body and headers when it is one too many
   * (it is then not counted), else null.
   */
  private overLimit(
    bot: string,
    route: Exclude<DiscordRoute, 'unknown'>,
    channelId: string | null,
    at: number,
  ): { body: object; headers: Record<string, string> } | null {
    if (!this.limits) return null;
    const tolerance = this.limits.toleranceMs ?? 0;
    const global = current(this.globals, bot, at, 1_000 - tolerance);
    if (global.used >= this.limits.globalPerSecond) {
      const retryAfter = (global.startedAt + 1_000 - tolerance - at) / 1000;
      return {
        body: { message: 'You are being rate limited.', retry_after: retryAfter, global: true },
        headers: {
          'retry-after': String(Math.max(1, Math.ceil(retryAfter))),
          'x-ratelimit-global': 'true',
          'x-ratelimit-scope': 'global',
        },
      };
    }
    const { limit, windowMs } = this.bucketOf(route);
    const bucket = current(
      this.buckets,
      `${bot}/${route}/${channelId ?? ''}`,
      at,
      windowMs - tolerance,
    );
    if (bucket.used >= limit) {
      const retryAfter = (bucket.startedAt + windowMs - tolerance - at) / 1000;
      return {
        body: { message: 'You are being rate limited.', retry_after: retryAfter, global: false },
        headers: {
          ...this.bucketHeaders(bot, route, channelId),
          'retry-after': String(Math.max(1, Math.ceil(retryAfter))),
          'x-ratelimit-scope': 'user',
        },
      };
    }
    global.used++;
    bucket.used++;
    return null;
  }

  private bucketOf(route: Exclude<DiscordRoute, 'unknown'>): { limit: number; windowMs: number } {
    if (route === 'createMessage' && this.limits)
      return { limit: this.limits.messagesPerChannel, windowMs: this.limits.messageWindowMs };
    return READ_BUCKET;
  }

  /** The X-RateLimit-* headers of the request's bucket, as counted so far. */
  private bucketHeaders(
    bot: string,
    route: Exclude<DiscordRoute, 'unknown'>,
    channelId: string | null,
  ): Record<string, string> {
    const { limit, windowMs } = this.bucketOf(route);
    const now = Date.now();
    const window = this.buckets.get(`${bot}/${route}/${channelId ?? ''}`) ?? {
      startedAt: now,
      used: 0,
    };
    const resetAt = window.startedAt + windowMs;
    return {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(0, limit - window.used)),
      'x-ratelimit-reset': (resetAt / 1000).toFixed(3),
      'x-ratelimit-reset-after': (Math.max(0, resetAt - now) / 1000).toFixed(3),
      'x-ratelimit-bucket': BUCKETS[route],
    };
  }

  private scripted(
    call: DiscordRecordedCall,
    res: ServerResponse,
    scripted: DiscordScriptedAnswer,
    headers: Record<string, string>,
  ): void {
    const status = scripted.status!;
    if (status === 429) {
      const retryAfter = scripted.retryAfter ?? 1;
      return this.reply(
        call,
        res,
        429,
        {
          message: scripted.message ?? 'You are being rate limited.',
          retry_after: retryAfter,
          global: scripted.global ?? false,
        },
        {
          ...(scripted.global ? {} : headers),
          ...(scripted.global ? { 'x-ratelimit-global': 'true' } : {}),
          'x-ratelimit-scope': scripted.global ? 'global' : 'user',
          'retry-after': String(Math.max(1, Math.ceil(retryAfter))),
        },
      );
    }
    if (status >= 500 && scripted.message === undefined) {
      // Discord's edge answers its own outages with a page, not JSON.
      call.status = status;
      res.writeHead(status, { 'content-type': 'text/html' });
      res.end('<html><body>Bad gateway</body></html>');
      return;
    }
    return this.reply(
      call,
      res,
      status,
      { message: scripted.message ?? `${status}: Error`, code: scripted.code ?? 0 },
      headers,
    );
  }

  private reply(
    call: DiscordRecordedCall,
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    call.status = status;
    const write = () => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const delay = this.latency.ms + (Math.random() * 2 - 1) * this.latency.jitterMs;
    if (delay > 0) setTimeout(write, delay);
    else write();
  }

  /** A snowflake as Discord makes them: ms since its epoch, then a running increment. */
  private snowflake(): string {
    const ms = BigInt(Date.now() - DISCORD_EPOCH_MS);
    return String((ms << 22n) | BigInt(this.increment++ & 0xfff));
  }
}

function routeOf(method: string, path: string): { route: DiscordRoute; channelId: string | null } {
  if (method === 'GET' && path === '/users/@me')
    return { route: 'getCurrentUser', channelId: null };
  const channel = /^\/channels\/([^/]+)(\/messages)?$/.exec(path);
  if (channel && method === 'GET' && !channel[2])
    return { route: 'getChannel', channelId: decodeURIComponent(channel[1]) };
  if (channel && method === 'POST' && channel[2])
    return { route: 'createMessage', channelId: decodeURIComponent(channel[1]) };
  return { route: 'unknown', channelId: null };
}

/** The window of `key` that `at` falls in: a new one once `windowMs` has passed since it began. */
function current(map: Map<string, Window>, key: string, at: number, windowMs: number): Window {
  const window = map.get(key);
  if (window && at - window.startedAt < windowMs) return window;
  const fresh = { startedAt: at, used: 0 };
  map.set(key, fresh);
  return fresh;
}

/** Discord's checks of a message body, as its `errors` object; null when it passes. */
function formErrors(
  body: Record<string, unknown>,
  files: DiscordRecordedFile[],
): Record<string, unknown> | null {
  const errors: Record<string, unknown> = {};
  const tooLong = (max: number) => ({
    _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${max} or fewer in length.` }],
  });
  if (typeof body.content === 'string' && body.content.length > 2000)
    errors.content = tooLong(2000);
  if (body.nonce !== undefined && String(body.nonce).length > 25) errors.nonce = tooLong(25);
  if (files.length > 10) errors.files = tooLong(10);
  const attachments = Array.isArray(body.attachments)
    ? (body.attachments as { id?: unknown }[])
    : [];
  const fields = new Set(files.map((file) => file.field));
  attachments.forEach((attachment, index) => {
    if (!fields.has(`files[${String(attachment.id)}]`)) {
      errors.attachments = {
        [index]: {
          id: { _errors: [{ code: 'ATTACHMENT_NOT_FOUND', message: 'Attachment data not found' }] },
        },
      };
    }
  });
  return Object.keys(errors).length > 0 ? errors : null;
}

function userObject(bot: Bot): object {
  return {
    id: bot.id,
    username: bot.username,
    avatar: null,
    discriminator: '0',
    public_flags: 0,
    flags: 0,
    bot: true,
    banner: null,
    accent_color: null,
    global_name: null,
    mfa_enabled: false,
    locale: 'en-US',
    verified: true,
    email: null,
  };
}

function channelObject(channel: DiscordStandInChannel): object {
  return {
    id: channel.id,
    type: channel.type,
    guild_id: channel.guild_id,
    name: channel.name,
    position: 0,
    flags: 0,
    parent_id: null,
    permission_overwrites: [],
    nsfw: false,
    rate_limit_per_user: 0,
    last_message_id: null,
    ...(channel.type === 2 ? { bitrate: 64000, user_limit: 0, rtc_region: null } : { topic: null }),
  };
}

function messageObject(message: DiscordStandInMessage, bot: Bot, channel: DiscordStandInChannel) {
  return {
    type: 0,
    channel_id: channel.id,
    content: message.content,
    attachments: message.attachments.map((attachment) => ({
      ...attachment,
      url: `https://cdn.discordapp.com/attachments/${channel.id}/${attachment.id}/${attachment.filename}`,
      proxy_url: `https://media.discordapp.net/attachments/${channel.id}/${attachment.id}/${attachment.filename}`,
    })),
    embeds: [],
    timestamp: new Date(message.at).toISOString(),
    edited_timestamp: null,
    flags: 0,
    components: [],
    id: message.id,
    author: userObject(bot),
    mentions: [],
    mention_roles: [],
    pinned: false,
    mention_everyone: false,
    tts: false,
    ...(message.nonce === null ? {} : { nonce: message.nonce }),
  };
}

async function readBody(
  req: IncomingMessage,
): Promise<Pick<DiscordRecordedCall, 'json' | 'fields' | 'files'>> {
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) {
    const { fields, files } = await readMultipart(req);
    const json =
      fields.payload_json !== undefined
        ? (JSON.parse(fields.payload_json) as Record<string, unknown>)
        : null;
    return { json, fields, files };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return {
    json: text ? (JSON.parse(text) as Record<string, unknown>) : null,
    fields: {},
    files: [],
  };
}

/** `message_reference.message_id` as text, else null. */
function referencedId(reference: unknown): string | null {
  const id = (reference as { message_id?: unknown } | null | undefined)?.message_id;
  return id === undefined || id === null ? null : String(id);
}

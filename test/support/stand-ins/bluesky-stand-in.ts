import { createHash, randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** One XRPC request as the stand-in received it. */
export interface XrpcRecord {
  nsid: string;
  /** The Bearer token, or null without one. */
  token: string | null;
  params: Record<string, string>;
  /** A procedure's JSON input (null for a byte upload). */
  json: Record<string, unknown> | null;
  /** An upload's bytes and content type. */
  bytes: Buffer | null;
  contentType: string | null;
  at: number;
}

/** A scripted answer for the next call of one method. */
export interface XrpcScript {
  status?: number;
  error?: string;
  message?: string;
  /** Extra answer headers (a 429's `ratelimit-reset`). */
  headers?: Record<string, string>;
  /** Do the work (a record is made), then never answer. */
  hangAfterWork?: boolean;
  /** Do the work, then drop the connection. */
  dropAfterWork?: boolean;
  /** Drop the connection once the request is read, before any work. */
  dropBeforeWork?: boolean;
  /** Do the work, then answer 200 with a body cut off, or without the record's `uri`. */
  afterWork?: 'malformed' | 'no_uri';
}

interface Account {
  did: string;
  handle: string;
  appPassword: string;
}

interface Session {
  did: string;
  accessJwt: string;
  refreshJwt: string;
}

/** The service's published write limit: 5000 points an hour, a create costing 3. */
export const WRITE_POINTS_PER_HOUR = 5000;
const CREATE_POINTS = 3;

/** The blob upload limit the reference PDS announces (describeServer's blobUploadLimit). */
const BLOB_UPLOAD_LIMIT = 5_242_880;
/** The lexicon's maxSize of an embedded image, which createRecord enforces. */
const EMBED_IMAGE_MAX_BYTES = 2_000_000;
/** Procedures whose lexicon has no input: the PDS refuses any body on them. */
const NO_INPUT = new Set(['com.atproto.server.refreshSession']);

/**
 * A local AT Protocol service (PDS) speaking XRPC as the reference PDS does, for the calls Herald
 * makes: createSession, refreshSession (no body taken; a spent refresh token still renews within
 * its grace period, to the same next token), uploadBlob, createRecord (another account's repo is
 * 401; a taken rkey is a 500, as the PDS's database refuses it; an embedded image over the
 * lexicon's 2,000,000 bytes is refused), getRecord (public; RecordNotFound), resolveHandle.
 * Errors are `{error, message}`; answers carry `ratelimit-*` headers and a write over the hourly
 * points is 429 RateLimitExceeded with `ratelimit-reset`. Blob and record CIDs are real CIDs, as
 * the lexicon-driven client checks them.
 */
export class BlueskyStandIn {
  readonly calls: XrpcRecord[] = [];
  /** Records by at:// URI. */
  readonly records = new Map<
    string,
    { uri: string; cid: string; value: Record<string, unknown> }
  >();
  readonly blobs = new Map<string, { bytes: Buffer; mimeType: string }>();
  private readonly accounts = new Map<string, Account>();
  private readonly sessions = new Map<string, Session>();
  private readonly refreshTokens = new Map<string, Session>();
  /** A used refresh token's successor, which every reuse in its grace period renews to. */
  private readonly nextRefresh = new Map<string, string>();
  private readonly scripts = new Map<string, XrpcScript[]>();
  private readonly hanging = new Set<ServerResponse>();
  /** Write points spent per DID in the current hour (and when it resets, in seconds). */
  private readonly points = new Map<string, { spent: number; resetAt: number }>();
  private pointsPerHour = WRITE_POINTS_PER_HOUR;
  private latency = { ms: 0, jitterMs: 0 };
  private server?: Server;
  sessionsCreated = 0;
  /** Refreshes that renewed a session. */
  refreshes = 0;
  rateLimited = 0;

  get url(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  async start(host = '127.0.0.1'): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, host, resolve));
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  /** Registers an account; `identifier` is its handle. */
  addAccount(handle = `herald-${randomBytes(3).toString('hex')}.bsky.social`): Account {
    const did = `did:plc:${createHash('sha256').update(handle).digest('hex').slice(0, 24)}`;
    const account = { did, handle, appPassword: 'abcd-efgh-ijkl-mnop' };
    this.accounts.set(handle, account);
    this.accounts.set(did, account);
    return account;
  }

  /** The app password is revoked: sessions and refresh tokens end, createSession refuses it. */
  revoke(account: Account): void {
    account.appPassword = `revoked-${randomBytes(4).toString('hex')}`;
    for (const [token, session] of [...this.sessions])
      if (session.did === account.did) this.sessions.delete(token);
    for (const [token, session] of [...this.refreshTokens])
      if (session.did === account.did) this.refreshTokens.delete(token);
  }

  /** Every access token of the account expires now (its refresh tokens stay good). */
  expireAccess(account: Account): void {
    for (const [token, session] of [...this.sessions])
      if (session.did === account.did) this.sessions.delete(token);
  }

  /** A record made outside Herald (an earlier try, another client) at this record key. */
  putRecord(did: string, rkey: string, value: Record<string, unknown> = {}): string {
    const uri = `at://${did}/app.bsky.feed.post/${rkey}`;
    this.records.set(uri, { uri, cid: cidOf(DAG_CBOR_CODEC, Buffer.from(uri)), value });
    return uri;
  }

  script(nsid: string, ...answers: XrpcScript[]): void {
    this.scripts.set(nsid, [...(this.scripts.get(nsid) ?? []), ...answers]);
  }

  callsOf(nsid: string): XrpcRecord[] {
    return this.calls.filter((call) => call.nsid === `com.atproto.${nsid}`);
  }

  recordsOf(did: string): { uri: string; value: Record<string, unknown> }[] {
    return [...this.records.values()].filter((r) => r.uri.startsWith(`at://${did}/`));
  }

  /** Writes allowed per account and hour, in records (each costs 3 points). */
  limitRecordsPerHour(records: number): this {
    this.pointsPerHour = records * CREATE_POINTS;
    return this;
  }

  answerAfter(ms: number, jitterMs = 0): this {
    this.latency = { ms, jitterMs };
    return this;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const nsid = url.pathname.replace(/^\/xrpc\//, '');
    const raw = await readBody(req);
    const contentType = req.headers['content-type'] ?? null;
    const isJson = contentType?.startsWith('application/json') ?? false;
    const auth = req.headers.authorization;
    const call: XrpcRecord = {
      nsid,
      token: auth?.startsWith('Bearer ') ? auth.slice(7) : null,
      params: Object.fromEntries(url.searchParams),
      json: isJson && raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as never) : null,
      bytes: isJson ? null : raw,
      contentType,
      at: Date.now(),
    };
    this.calls.push(call);
    const delay = this.latency.ms + (Math.random() * 2 - 1) * this.latency.jitterMs;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    if (NO_INPUT.has(nsid) && (raw.length > 0 || contentType !== null)) {
      this.send(res, 400, {
        error: 'InvalidRequest',
        message: 'A request body was provided when none was expected',
      });
      return;
    }
    const script = this.scripts.get(nsid)?.shift();
    if (script?.dropBeforeWork) {
      res.socket?.destroy();
      return;
    }
    if (script?.status) {
      const body = { error: script.error ?? 'InternalServerError', message: script.message ?? '' };
      this.send(res, script.status, body, script.headers);
      return;
    }
    const answer = this.answer(nsid, call);
    if (script?.hangAfterWork) {
      this.hanging.add(res);
      return;
    }
    if (script?.dropAfterWork) {
      res.socket?.destroy();
      return;
    }
    if (script?.afterWork === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"uri": "at://');
      return;
    }
    if (script?.afterWork === 'no_uri') {
      const { uri: _uri, ...rest } = answer.body as Record<string, unknown>;
      this.send(res, answer.status, rest, answer.headers);
      return;
    }
    this.send(res, answer.status, answer.body, answer.headers);
  }

  private answer(
    nsid: string,
    call: XrpcRecord,
  ): { status: number; body: unknown; headers?: Record<string, string> } {
    switch (nsid) {
      case 'com.atproto.server.createSession':
        return this.createSession(call);
      case 'com.atproto.server.refreshSession':
        return this.refreshSession(call);
      case 'com.atproto.repo.getRecord':
        return this.getRecord(call);
      case 'com.atproto.identity.resolveHandle':
        return this.resolveHandle(call);
    }
    const session = call.token ? this.sessions.get(call.token) : undefined;
    if (!call.token) return err(401, 'AuthenticationRequired', 'Authentication Required');
    if (!session) return err(400, 'ExpiredToken', 'Token has expired');
    switch (nsid) {
      case 'com.atproto.repo.uploadBlob':
        return this.uploadBlob(call);
      case 'com.atproto.repo.createRecord':
        return this.createRecord(call, session);
    }
    return err(501, 'MethodNotImplemented', 'Method Not Implemented');
  }

  private createSession(call: XrpcRecord) {
    const { identifier, password } = (call.json ?? {}) as {
      identifier?: string;
      password?: string;
    };
    const account = identifier ? this.accounts.get(identifier) : undefined;
    if (!account || account.appPassword !== password)
      return err(401, 'AuthenticationRequired', 'Invalid identifier or password');
    this.sessionsCreated++;
    return { status: 200, body: this.open(account) };
  }

  private refreshSession(call: XrpcRecord) {
    const session = call.token ? this.refreshTokens.get(call.token) : undefined;
    if (!session) return err(400, 'ExpiredToken', 'Token has been revoked');
    this.refreshes++;
    const account = this.accounts.get(session.did)!;
    // Used once, a refresh token stays good for its grace period, and always renews to the same
    // next refresh token; the access tokens already issued stay good until they expire.
    const next =
      this.nextRefresh.get(session.refreshJwt) ?? `refresh.${randomBytes(12).toString('hex')}`;
    this.nextRefresh.set(session.refreshJwt, next);
    return { status: 200, body: this.open(account, next) };
  }

  private open(account: Account, refreshJwt = `refresh.${randomBytes(12).toString('hex')}`) {
    const session: Session = {
      did: account.did,
      accessJwt: `access.${randomBytes(12).toString('hex')}`,
      refreshJwt,
    };
    this.sessions.set(session.accessJwt, session);
    this.refreshTokens.set(session.refreshJwt, session);
    return { handle: account.handle, active: true, ...session };
  }

  private uploadBlob(call: XrpcRecord) {
    const bytes = call.bytes ?? Buffer.alloc(0);
    if (bytes.length > BLOB_UPLOAD_LIMIT)
      return err(
        400,
        'BlobTooLarge',
        'This file is too large. It is 5.3MB but the maximum size is 5.2MB.',
      );
    const link = cidOf(RAW_CODEC, bytes);
    const mimeType = call.contentType ?? '*/*';
    this.blobs.set(link, { bytes, mimeType });
    return {
      status: 200,
      body: { blob: { $type: 'blob', ref: { $link: link }, mimeType, size: bytes.length } },
    };
  }

  private createRecord(call: XrpcRecord, session: Session) {
    const input = (call.json ?? {}) as {
      repo?: string;
      collection?: string;
      rkey?: string;
      record?: Record<string, unknown>;
    };
    if (input.repo !== session.did)
      return err(401, 'AuthenticationRequired', 'Authentication Required');
    if (
      !input.rkey ||
      !/^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/.test(input.rkey)
    )
      return err(400, 'InvalidRequest', `Invalid record key: ${input.rkey}`);
    const text = input.record?.text;
    if (typeof text !== 'string' || [...new Intl.Segmenter().segment(text)].length > 300)
      return err(
        400,
        'InvalidRequest',
        'Invalid app.bsky.feed.post record: Record/text must not be longer than 300 graphemes',
      );
    const reply = replyProblem(input.record?.reply);
    if (reply) return err(400, 'InvalidRequest', `Invalid app.bsky.feed.post record: ${reply}`);
    const embed = input.record?.embed as { images?: { image?: { size?: number } }[] } | undefined;
    if ((embed?.images ?? []).some((i) => (i.image?.size ?? 0) > EMBED_IMAGE_MAX_BYTES))
      return err(
        400,
        'InvalidRequest',
        `Invalid app.bsky.feed.post record: Record/embed/images/0/image cannot be over ${EMBED_IMAGE_MAX_BYTES} bytes`,
      );
    const limited = this.spend(session.did, CREATE_POINTS);
    if (limited) return limited;
    const uri = `at://${session.did}/${input.collection}/${input.rkey}`;
    if (this.records.has(uri)) return err(500, 'InternalServerError', 'Internal Server Error');
    const cid = cidOf(DAG_CBOR_CODEC, Buffer.from(JSON.stringify(input.record ?? {})));
    this.records.set(uri, { uri, cid, value: input.record ?? {} });
    return { status: 200, body: { uri, cid, validationStatus: 'valid' } };
  }

  private getRecord(call: XrpcRecord) {
    const { repo, collection, rkey } = call.params;
    const uri = `at://${repo}/${collection}/${rkey}`;
    const found = this.records.get(uri);
    if (!found) return err(400, 'RecordNotFound', `Could not locate record: ${uri}`);
    return { status: 200, body: { uri, cid: found.cid, value: found.value } };
  }

  private resolveHandle(call: XrpcRecord) {
    const account = this.accounts.get(call.params.handle ?? '');
    if (!account || account.handle !== call.params.handle)
      return err(400, 'InvalidRequest', 'Unable to resolve handle');
    return { status: 200, body: { did: account.did } };
  }

  /** Spends write points; a 429 answer when the hour's points are gone. */
  private spend(did: string, points: number) {
    const now = Math.floor(Date.now() / 1000);
    let window = this.points.get(did);
    if (!window || window.resetAt <= now) {
      window = { spent: 0, resetAt: now + 3600 };
      this.points.set(did, window);
    }
    const headers = {
      'ratelimit-limit': String(this.pointsPerHour),
      'ratelimit-policy': `${this.pointsPerHour};w=3600`,
      'ratelimit-reset': String(window.resetAt),
    };
    if (window.spent + points > this.pointsPerHour) {
      this.rateLimited++;
      return {
        ...err(429, 'RateLimitExceeded', 'Rate Limit Exceeded'),
        headers: { ...headers, 'ratelimit-remaining': '0' },
      };
    }
    window.spent += points;
    return null;
  }

  private send(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  }
}

const RAW_CODEC = 0x55;
const DAG_CBOR_CODEC = 0x71;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A CIDv1 (sha-256) of `bytes` in the codec given, as base32 text ("b…"), as a PDS makes them. */
/**
 * The lexicon's check of `reply`: `root` and `parent` strong refs, each an at:// `uri` and a `cid`.
 * Like the real PDS, it does not look the parent up: a reply to a record it never saw is stored.
 */
function replyProblem(reply: unknown): string | null {
  if (reply === undefined) return null;
  for (const side of ['root', 'parent'] as const) {
    const ref = (reply as Record<string, unknown> | null)?.[side] as
      { uri?: unknown; cid?: unknown } | undefined;
    if (typeof ref?.uri !== 'string' || !ref.uri.startsWith('at://'))
      return `Record/reply/${side}/uri must be a valid at-uri`;
    if (typeof ref.cid !== 'string' || !/^b[a-z2-7]{20,}$/.test(ref.cid))
      return `Record/reply/${side} must have the property "cid"`;
  }
  return null;
}

function cidOf(codec: number, bytes: Buffer): string {
  const digest = createHash('sha256').update(bytes).digest();
  const binary = Buffer.concat([Buffer.from([0x01, codec, 0x12, 0x20]), digest]);
  let out = 'b';
  let bits = 0;
  let value = 0;
  for (const byte of binary) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function err(status: number, error: string, message: string) {
  return { status, body: { error, message } };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

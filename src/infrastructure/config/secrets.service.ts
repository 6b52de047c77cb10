import { Injectable } from '@nestjs/common';
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  randomInt,
  scrypt,
  timingSafeEqual,
} from 'node:crypto';
import { promisify } from 'node:util';
import type { AppConfig } from './config';
import { InjectConfig } from './config.module';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** N comes from configuration. */
const SCRYPT = { r: 8, p: 1, keylen: 32 };
/** scrypt needs 128 × N × r bytes; this allows N up to 2^20 with r = 8. */
const SCRYPT_MAXMEM = 1100 * 1024 * 1024;
const SEALED_VERSION = 'v1';

/** Every use of APP_SECRET derives its own key, so one never unlocks another. */
@Injectable()
export class SecretsService {
  private readonly hashKey: Buffer;
  private readonly sealKey: Buffer;
  private readonly tokenKey: Buffer;
  private readonly formKey: Buffer;
  private readonly passwordN: number;

  constructor(@InjectConfig() config: AppConfig) {
    this.hashKey = derive(config.appSecret, 'herald/token-hash');
    this.sealKey = derive(config.appSecret, 'herald/seal');
    this.tokenKey = derive(config.appSecret, 'herald/signed-token');
    this.formKey = derive(config.appSecret, 'herald/admin-csrf');
    this.passwordN = 2 ** config.passwordHashLog2N;
  }

  formToken(nonce: string): string {
    return createHmac('sha256', this.formKey).update(nonce).digest('base64url');
  }

  /** Not secret, not forgeable (list cursors). */
  signToken(data: string): string {
    const body = Buffer.from(data, 'utf8').toString('base64url');
    return `${body}.${createHmac('sha256', this.tokenKey).update(body).digest('base64url')}`;
  }

  /** Null for anything signToken did not make. */
  verifyToken(token: string): string | null {
    const [body, mac, extra] = token.split('.');
    if (!body || !mac || extra !== undefined) return null;
    const expected = createHmac('sha256', this.tokenKey).update(body).digest();
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    return Buffer.from(body, 'base64url').toString('utf8');
  }

  randomAlphanumeric(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
    return out;
  }

  /** For high-entropy secrets only: fast enough for the request path. */
  hashToken(secret: string): string {
    return createHmac('sha256', this.hashKey).update(secret).digest('hex');
  }

  digestsEqual(a: string, b: string): boolean {
    const left = Buffer.from(a, 'hex');
    const right = Buffer.from(b, 'hex');
    return left.length === right.length && timingSafeEqual(left, right);
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [SEALED_VERSION, iv, cipher.getAuthTag(), body].map(encode).join(':');
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== SEALED_VERSION || !iv || !tag || body === undefined)
      throw new Error('Unreadable sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.sealKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(body, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  }

  async hashPassword(password: string): Promise<string> {
    const salt = randomBytes(16);
    const hash = await scryptAsync(password, salt, SCRYPT.keylen, {
      N: this.passwordN,
      r: SCRYPT.r,
      p: SCRYPT.p,
      maxmem: SCRYPT_MAXMEM,
    });
    return [
      'scrypt',
      this.passwordN,
      SCRYPT.r,
      SCRYPT.p,
      salt.toString('base64url'),
      hash.toString('base64url'),
    ].join('$');
  }

  async verifyPassword(password: string, stored: string): Promise<boolean> {
    const [kind, n, r, p, salt, hash] = stored.split('$');
    if (kind !== 'scrypt' || !salt || !hash) return false;
    const expected = Buffer.from(hash, 'base64url');
    const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: SCRYPT_MAXMEM,
    });
    return timingSafeEqual(actual, expected);
  }

  /** Made at a lower cost than new ones get: rehash it at the next sign-in. */
  needsRehash(stored: string): boolean {
    const [kind, n, r, p] = stored.split('$');
    return (
      kind !== 'scrypt' ||
      Number(n) < this.passwordN ||
      Number(r) < SCRYPT.r ||
      Number(p) < SCRYPT.p
    );
  }
}

function derive(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'herald', purpose, 32));
}

function encode(part: string | Buffer): string {
  return typeof part === 'string' ? part : part.toString('base64url');
}

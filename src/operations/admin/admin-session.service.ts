import { Injectable } from '@nestjs/common';
import type { CookieOptions, Request, Response } from 'express';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { bearerToken } from '../../domains/api-keys/api-key-format';
import type { Principal } from '../../access/principal';
import { SessionsService } from '../../domains/users/sessions.service';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { AppError } from '../../http/errors/error-codes';
import { SecretsService } from '../../infrastructure/config/secrets.service';
import { SignInLimiter } from '../../infrastructure/rate-limit/sign-in-limiter';
import { UsersService } from '../../domains/users/users.service';

export const SESSION_COOKIE = 'herald_admin_session';
export const CSRF_COOKIE = 'herald_admin_csrf';
const COOKIE_PATH = '/admin';
const SESSION_COOKIE_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

export type AdminCaller =
  | { kind: 'anonymous' }
  | { kind: 'operator'; principal: Principal }
  | { kind: 'not_operator'; principal: Principal };

/** Sessions by HttpOnly SameSite=Strict cookie or Bearer, never API keys; HMAC CSRF tokens. */
@Injectable()
export class AdminSessionService {
  constructor(
    private readonly sessions: SessionsService,
    private readonly users: UsersService,
    private readonly signInLimits: SignInLimiter,
    private readonly secrets: SecretsService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async caller(req: Request): Promise<AdminCaller> {
    const cookies = req.cookies as Record<string, string> | undefined;
    const token = bearerToken(req.headers.authorization) ?? cookies?.[SESSION_COOKIE] ?? null;
    if (token === null) return { kind: 'anonymous' };
    try {
      const principal = await this.sessions.authenticate(token);
      return { kind: principal.user.isOperator ? 'operator' : 'not_operator', principal };
    } catch (error) {
      if (error instanceof AppError && error.code === 'unauthorized') return { kind: 'anonymous' };
      throw error;
    }
  }

  /** Under the sign-in limits; opens a session only for an operator. */
  async signIn(
    email: string,
    password: string,
    res: Response,
    req: Request,
  ): Promise<'signed_in' | 'wrong' | 'not_operator'> {
    const user = await this.signInLimits.attempt(req, email, () =>
      this.users.verifyCredentials(email, password),
    );
    if (!user) return 'wrong';
    if (!user.isOperator) return 'not_operator';
    const token = await this.sessions.open(user.id);
    res.cookie(SESSION_COOKIE, token, {
      ...this.cookieOptions(req),
      maxAge: SESSION_COOKIE_MAX_AGE_MS,
    });
    return 'signed_in';
  }

  async signOut(caller: AdminCaller, req: Request, res: Response): Promise<void> {
    if (caller.kind !== 'anonymous' && caller.principal.sessionId !== undefined)
      await this.sessions.close(caller.principal.sessionId);
    res.clearCookie(SESSION_COOKIE, this.cookieOptions(req));
  }

  /** Sets its nonce cookie when the browser has none yet. */
  csrfToken(req: Request, res: Response): string {
    const cookies = req.cookies as Record<string, string> | undefined;
    let nonce = cookies?.[CSRF_COOKIE];
    if (!nonce || !/^[A-Za-z0-9_-]{16,64}$/.test(nonce)) {
      nonce = randomBytes(24).toString('base64url');
      res.cookie(CSRF_COOKIE, nonce, this.cookieOptions(req));
    }
    return this.sign(nonce);
  }

  /** From our own origin and carrying the token of its nonce. */
  isGenuineForm(req: Request): boolean {
    const origin = req.headers.origin;
    if (origin !== undefined && !sameHost(origin, req.headers.host)) return false;
    const nonce = (req.cookies as Record<string, string> | undefined)?.[CSRF_COOKIE];
    const presented = (req.body as Record<string, unknown> | undefined)?.csrf;
    if (!nonce || typeof presented !== 'string') return false;
    const expected = Buffer.from(this.sign(nonce));
    const given = Buffer.from(presented);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  private sign(nonce: string): string {
    return this.secrets.formToken(nonce);
  }

  private cookieOptions(req: Request): CookieOptions {
    return {
      httpOnly: true,
      sameSite: 'strict',
      secure: req.secure || this.config.publicBaseUrl.startsWith('https:'),
      path: COOKIE_PATH,
    };
  }
}

function sameHost(origin: string, host: string | undefined): boolean {
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

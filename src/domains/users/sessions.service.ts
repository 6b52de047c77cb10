import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { Repository } from 'typeorm';
import { SecretsService } from '../../infrastructure/config/secrets.service';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
import { AppError } from '../../http/errors/error-codes';
import type { Principal } from '../../access/principal';
import { Session } from './session.entity';

/** A session ends this long after it was opened, however much it is used. */
const SESSION_TTL_DAYS = 30;
/** A session unused this long ends. */
export const SESSION_IDLE_DAYS = 7;

interface SessionRow {
  id: number;
  user_id: number;
  email: string;
  name: string;
  is_admin: boolean;
  is_operator: boolean;
}

/**
 * Finds a live session and notes its use. The use is written at most once an hour, so a busy
 * session costs no write per request; an idle week is measured to within that hour.
 */
const FIND_SESSION = new Statement(
  `WITH found AS (
     SELECT s.id, s.user_id, s.last_used_at
       FROM sessions s
      WHERE s.token_hash = $1 AND s.expires_at > now()
        AND s.last_used_at > now() - make_interval(days => ${SESSION_IDLE_DAYS})),
   touched AS (
     UPDATE sessions SET last_used_at = now()
      WHERE id = (SELECT id FROM found) AND last_used_at < now() - interval '1 hour')
   SELECT f.id, f.user_id, u.email, u.name, u.is_admin, u.is_operator
     FROM found f JOIN users u ON u.id = f.user_id`,
);

@Injectable()
export class SessionsService {
  constructor(
    @InjectRepository(Session) private readonly sessions: Repository<Session>,
    private readonly secrets: SecretsService,
  ) {}

  /** Opens a session; the token is returned once and only its keyed hash is stored. */
  async open(userId: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.sessions.query(
      `INSERT INTO sessions (user_id, token_hash, expires_at)
       VALUES ($1, $2, now() + make_interval(days => $3))`,
      [userId, this.secrets.hashToken(token), SESSION_TTL_DAYS],
    );
    return token;
  }

  async authenticate(token: string | null): Promise<Principal> {
    if (!token || token.length > 128) throw AppError.unauthorized();
    const [row] = await rowsOf<SessionRow>(this.sessions.manager, FIND_SESSION, [
      this.secrets.hashToken(token),
    ]);
    if (!row) throw AppError.unauthorized();
    return {
      kind: 'session',
      sessionId: row.id,
      user: {
        id: row.user_id,
        email: row.email,
        name: row.name,
        isAdmin: row.is_admin,
        isOperator: row.is_operator,
      },
    };
  }

  async close(sessionId: number): Promise<void> {
    await this.sessions.delete({ id: sessionId });
  }

  /** Ends every session of the user but `keep` (the one that asked), or all of them. */
  async closeAllOf(userId: number, keep?: number): Promise<void> {
    await this.sessions.query(
      `DELETE FROM sessions WHERE user_id = $1 AND ($2::int IS NULL OR id <> $2)`,
      [userId, keep ?? null],
    );
  }
}

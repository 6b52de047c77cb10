import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { Repository } from 'typeorm';
import { SecretsService } from '../crypto/secrets.service';
import { rowsOf, Statement } from '../database/prepared';
import { AppError } from '../errors/error-codes';
import type { Principal } from './principal';
import { Session } from './session.entity';

const SESSION_TTL_DAYS = 30;

interface SessionRow {
  id: number;
  user_id: number;
  email: string;
  name: string;
  is_admin: boolean;
}

const FIND_SESSION = new Statement(
  `SELECT s.id, s.user_id, u.email, u.name, u.is_admin
     FROM sessions s JOIN users u ON u.id = s.user_id
    WHERE s.token_hash = $1 AND s.expires_at > now()`,
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
      user: { id: row.user_id, email: row.email, name: row.name, isAdmin: row.is_admin },
    };
  }

  async close(sessionId: number): Promise<void> {
    await this.sessions.delete({ id: sessionId });
  }
}

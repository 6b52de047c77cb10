import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { SecretsService } from '../../infrastructure/config/secrets.service';
import { AppError } from '../../http/errors/error-codes';
import type { Principal } from '../../access/principal';
import { UsersRepository } from './users.repository';

/** A session ends this long after it was opened, however much it is used. */
const SESSION_TTL_DAYS = 30;

@Injectable()
export class SessionsService {
  constructor(
    private readonly users: UsersRepository,
    private readonly secrets: SecretsService,
  ) {}

  /** Opens a session; the token is returned once and only its keyed hash is stored. */
  async open(userId: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.users.openSession(userId, this.secrets.hashToken(token), SESSION_TTL_DAYS);
    return token;
  }

  async authenticate(token: string | null): Promise<Principal> {
    if (!token || token.length > 128) throw AppError.unauthorized();
    const row = await this.users.findLiveSession(this.secrets.hashToken(token));
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
    await this.users.closeSession(sessionId);
  }

  /** Ends every session of the user but `keep` (the one that asked), or all of them. */
  async closeAllOf(userId: number, keep?: number): Promise<void> {
    await this.users.closeSessionsOf(userId, keep);
  }
}

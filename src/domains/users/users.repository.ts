import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
import { Session } from './session.entity';
import { User } from './user.entity';

export const SESSION_IDLE_DAYS = 7;

export interface SessionRow {
  id: number;
  user_id: number;
  email: string;
  name: string;
  is_admin: boolean;
  is_operator: boolean;
}

/** The use is written at most once an hour, so a busy session costs no write per request. */
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

export type RoleColumn = 'isAdmin' | 'isOperator';

/** Users are above projects: each method is scoped by the user, email or token it is given. */
@Injectable()
export class UsersRepository {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(Session) private readonly sessions: Repository<Session>,
  ) {}

  /** An email already taken fails on its unique index. */
  insert(user: Pick<User, 'email' | 'name' | 'passwordHash'>): Promise<User> {
    return this.users.save(this.users.create(user));
  }

  findById(userId: number): Promise<User | null> {
    return this.users.findOneBy({ id: userId });
  }

  findByEmail(email: string): Promise<User | null> {
    return this.users.findOneBy({ email });
  }

  async setRole(userId: number, column: RoleColumn, granted: boolean): Promise<void> {
    await this.users.update({ id: userId }, { [column]: granted });
  }

  async setPasswordHash(userId: number, passwordHash: string): Promise<void> {
    await this.users.update({ id: userId }, { passwordHash });
  }

  async setPasswordHashEndingSessions(userId: number, passwordHash: string): Promise<void> {
    await this.users.manager.transaction(async (m) => {
      await m.update(User, { id: userId }, { passwordHash });
      await m.query('DELETE FROM sessions WHERE user_id = $1', [userId]);
    });
  }

  /** Only the token's hash is stored. */
  async openSession(userId: number, tokenHash: string, ttlDays: number): Promise<void> {
    await this.sessions.query(
      `INSERT INTO sessions (user_id, token_hash, expires_at)
       VALUES ($1, $2, now() + make_interval(days => $3))`,
      [userId, tokenHash, ttlDays],
    );
  }

  async findLiveSession(tokenHash: string): Promise<SessionRow | null> {
    const [row] = await rowsOf<SessionRow>(this.sessions.manager, FIND_SESSION, [tokenHash]);
    return row ?? null;
  }

  async closeSession(sessionId: number): Promise<void> {
    await this.sessions.delete({ id: sessionId });
  }

  async closeSessionsOf(userId: number, keep?: number): Promise<void> {
    await this.sessions.query(
      `DELETE FROM sessions WHERE user_id = $1 AND ($2::int IS NULL OR id <> $2)`,
      [userId, keep ?? null],
    );
  }
}

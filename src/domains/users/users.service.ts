import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { SecretsService } from '../../infrastructure/config/secrets.service';
import { isUniqueViolation } from '../../infrastructure/database/query-errors';
import { AppError } from '../../http/errors/error-codes';
import { User } from './user.entity';
import { UsersRepository } from './users.repository';

export interface UserView {
  id: number;
  email: string;
  name: string;
  is_admin: boolean;
  is_operator: boolean;
}

type ViewedUser = Pick<User, 'id' | 'email' | 'name' | 'isAdmin' | 'isOperator'>;

export function toUserView(user: ViewedUser): UserView {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    is_admin: user.isAdmin,
    is_operator: user.isOperator,
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Administrators create API keys, operators run the service. */
export type GlobalRole = 'admin' | 'operator';
const ROLE_COLUMN = { admin: 'isAdmin', operator: 'isOperator' } as const;

@Injectable()
export class UsersService {
  /** So unknown emails cost as much as wrong passwords. */
  private dummyHash?: Promise<string>;

  constructor(
    private readonly users: UsersRepository,
    private readonly secrets: SecretsService,
  ) {}

  async register(email: string, password: string, name: string): Promise<User> {
    const passwordHash = await this.secrets.hashPassword(password);
    try {
      return await this.users.insert({
        email: normalizeEmail(email),
        name: name.trim(),
        passwordHash,
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new AppError('email_taken', 'A user with this email already exists');
      }
      throw error;
    }
  }

  /** Same time spent either way; a hash of a lower cost is upgraded. */
  async verifyCredentials(email: string, password: string): Promise<User | null> {
    const user = await this.findByEmail(email);
    this.dummyHash ??= this.secrets.hashPassword(randomBytes(16).toString('base64url'));
    const stored = user?.passwordHash ?? (await this.dummyHash);
    const ok = await this.secrets.verifyPassword(password, stored);
    if (!user || !ok) return null;
    if (this.secrets.needsRehash(user.passwordHash)) await this.setPassword(user.id, password);
    return user;
  }

  /** False when the current one is wrong. */
  async changePassword(userId: number, current: string, next: string): Promise<boolean> {
    const user = await this.users.findById(userId);
    if (!user || !(await this.secrets.verifyPassword(current, user.passwordHash))) return false;
    await this.setPassword(userId, next);
    return true;
  }

  findByEmail(email: string): Promise<User | null> {
    return this.users.findByEmail(normalizeEmail(email));
  }

  async setRole(email: string, role: GlobalRole, granted: boolean): Promise<User> {
    const user = await this.findByEmail(email);
    if (!user) throw new AppError('user_not_found', `No user with email ${normalizeEmail(email)}`);
    const column = ROLE_COLUMN[role];
    if (user[column] !== granted) await this.users.setRole(user.id, column, granted);
    return { ...user, [column]: granted };
  }

  /** Ends every session of the user (the CLI's reset). */
  async resetPassword(email: string, password: string): Promise<User> {
    const user = await this.findByEmail(email);
    if (!user) throw new AppError('user_not_found', `No user with email ${normalizeEmail(email)}`);
    const passwordHash = await this.secrets.hashPassword(password);
    await this.users.setPasswordHashEndingSessions(user.id, passwordHash);
    return user;
  }

  private async setPassword(userId: number, password: string): Promise<void> {
    const passwordHash = await this.secrets.hashPassword(password);
    await this.users.setPasswordHash(userId, passwordHash);
  }
}

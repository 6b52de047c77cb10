import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { SecretsService } from '../crypto/secrets.service';
import { isUniqueViolation } from '../database/query-errors';
import { AppError } from '../errors/error-codes';
import { User } from './user.entity';

export interface UserView {
  id: number;
  email: string;
  name: string;
  is_admin: boolean;
}

export function toUserView(user: Pick<User, 'id' | 'email' | 'name' | 'isAdmin'>): UserView {
  return { id: user.id, email: user.email, name: user.name, is_admin: user.isAdmin };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

@Injectable()
export class UsersService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly secrets: SecretsService,
  ) {}

  async register(email: string, password: string, name: string): Promise<User> {
    const passwordHash = await this.secrets.hashPassword(password);
    try {
      return await this.users.save(
        this.users.create({ email: normalizeEmail(email), name: name.trim(), passwordHash }),
      );
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new AppError('email_taken', 'A user with this email already exists');
      }
      throw error;
    }
  }

  /** The user whose email and password match, or null; same time spent either way. */
  async verifyCredentials(email: string, password: string): Promise<User | null> {
    const user = await this.findByEmail(email);
    const ok = await this.secrets.verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
    return user && ok ? user : null;
  }

  findByEmail(email: string): Promise<User | null> {
    return this.users.findOneBy({ email: normalizeEmail(email) });
  }

  async grantAdmin(email: string): Promise<User> {
    const user = await this.findByEmail(email);
    if (!user) throw new AppError('user_not_found', `No user with email ${normalizeEmail(email)}`);
    if (!user.isAdmin) await this.users.update({ id: user.id }, { isAdmin: true });
    return { ...user, isAdmin: true };
  }
}

/** A valid scrypt hash of a random string, so unknown emails cost as much as wrong passwords. */
const DUMMY_HASH =
  'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$5jtmTnmvk3q8a1ZQvz1pC1mR9FCrd1j8u4XvU1fXk4Q';
